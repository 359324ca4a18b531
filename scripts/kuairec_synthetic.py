"""Write a SYNTHETIC archive in the KuaiRec 2.0 format at KuaiRec's size (issue 26 item 3).

KuaiRec.zip is not on this machine. This writes ``DIR/kuairec/KuaiRec.zip`` with the three
members the ``kuairec`` loader reads (the layout of ``tests/datasets/tiny_data.py``'s
``write_kuairec``, scaled up): ``small_matrix.csv`` with 4,494,578 timestamped rows (the
paper's count) over 1,411 users x 3,327 videos and 63 days, ``user_features.csv`` with the
KuaiRec 2.0 user columns (25 numeric after the loader drops ids and strings) and
``item_daily_features.csv`` with one row per (video, day) and the KuaiRec 2.0 daily item
columns (48 numeric), so the loader builds 73 features, as on the real tables' published
column lists (not checked against the real file, which is absent). Values are random; the
label (watch_ratio > 0.75) depends on user and video effects that some features carry, so
the learners have something to learn. It measures time and memory at KuaiRec's scale; its
mistake rates say nothing about KuaiRec.

Never write it into the shared data folder:

    python scripts/kuairec_synthetic.py /tmp/kuairec_synth [--rows 4494578]
"""

from __future__ import annotations

import argparse
import io
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

N_ROWS = 4_494_578
N_USERS, N_VIDEOS, N_DAYS = 1411, 3327, 63
ITEM_COUNTS = (
    "show_cnt show_user_num play_cnt play_user_num play_duration complete_play_cnt "
    "complete_play_user_num valid_play_cnt valid_play_user_num long_time_play_cnt "
    "long_time_play_user_num short_time_play_cnt short_time_play_user_num play_progress "
    "comment_stay_duration like_cnt like_user_num click_like_cnt double_click_cnt "
    "cancel_like_cnt cancel_like_user_num comment_cnt comment_user_num direct_comment_cnt "
    "reply_comment_cnt delete_comment_cnt delete_comment_user_num comment_like_cnt "
    "comment_like_user_num follow_cnt follow_user_num cancel_follow_cnt "
    "cancel_follow_user_num share_cnt share_user_num download_cnt download_user_num "
    "report_cnt report_user_num reduce_similar_cnt reduce_similar_user_num collect_cnt "
    "collect_user_num cancel_collect_cnt cancel_collect_user_num"
).split()


def _csv(frame: pd.DataFrame) -> bytes:
    buf = io.StringIO()
    frame.to_csv(buf, index=False)
    return buf.getvalue().encode()


def build(rows: int, seed: int = 0) -> dict[str, bytes]:
    rng = np.random.default_rng(seed)
    days = pd.date_range("2020-07-05", periods=N_DAYS, freq="D")
    day_int = np.array([int(d.strftime("%Y%m%d")) for d in days])
    u_eff = rng.normal(0, 1, N_USERS)
    v_eff = rng.normal(0, 1, N_VIDEOS)

    users = pd.DataFrame({"user_id": np.arange(N_USERS)})
    users["user_active_degree"] = rng.choice(["high_active", "full_active", "middle_active"],
                                             N_USERS)
    users["is_lowactive_period"] = (u_eff < -1.5).astype(int)
    users["is_live_streamer"] = rng.integers(0, 2, N_USERS)
    users["is_video_author"] = rng.integers(0, 2, N_USERS)
    for c in ("follow_user_num", "fans_user_num", "friend_user_num"):
        users[c] = rng.poisson(30, N_USERS)
        users[c + "_range"] = "(0;50]"
    users["register_days"] = rng.integers(30, 2000, N_USERS)
    users["register_days_range"] = "31-60"
    for j in range(18):  # one-hot features; the first few carry the user effect
        users[f"onehot_feat{j}"] = (
            np.digitize(u_eff, [-0.5, 0.5]) if j < 3 else rng.integers(0, 5, N_USERS)
        )

    vid = np.repeat(np.arange(N_VIDEOS), N_DAYS)
    items = pd.DataFrame({"video_id": vid, "date": np.tile(day_int, N_VIDEOS)})
    items["author_id"] = vid // 3
    items["video_type"] = "NORMAL"
    items["upload_dt"] = "2020-06-01"
    items["upload_type"] = "ShortImport"
    items["visible_status"] = "public"
    items["video_duration"] = np.repeat(rng.integers(5000, 60000, N_VIDEOS), N_DAYS)
    items["video_width"] = 720
    items["video_height"] = 1280
    items["music_id"] = vid % 977
    items["video_tag_id"] = vid % 31
    items["video_tag_name"] = "tag"
    n = len(items)
    for c in ITEM_COUNTS:
        items[c] = rng.poisson(20, n)
    # the video effect shows in its daily play progress (with noise)
    items["play_progress"] = np.round(
        0.5 + 0.15 * np.repeat(v_eff, N_DAYS) + rng.normal(0, 0.05, n), 4)

    t0 = int(pd.Timestamp("2020-07-05").timestamp())
    ts = np.sort(rng.uniform(t0, t0 + N_DAYS * 86400, rows))
    day = ((ts - t0) // 86400).astype(int)
    user = rng.integers(0, N_USERS, rows)
    video = rng.integers(0, N_VIDEOS, rows)
    logit = 0.8 * u_eff[user] + 0.8 * v_eff[video] + rng.normal(0, 1, rows)
    watch_ratio = np.round(np.exp(0.5 * logit - 0.2), 4)
    vdur = items["video_duration"].to_numpy()[video * N_DAYS]
    small = pd.DataFrame({
        "user_id": user, "video_id": video,
        "play_duration": np.round(watch_ratio * vdur).astype(np.int64),
        "video_duration": vdur, "time": "2020-07-05 05:27:48",
        "date": day_int[day].astype(float), "timestamp": np.round(ts, 3),
        "watch_ratio": watch_ratio,
    })
    return {
        "KuaiRec 2.0/data/small_matrix.csv": _csv(small),
        "KuaiRec 2.0/data/user_features.csv": _csv(users),
        "KuaiRec 2.0/data/item_daily_features.csv": _csv(items),
        "KuaiRec 2.0/data/item_categories.csv": b"video_id,feat\n148,[8]\n",
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=Path, help="data folder (e.g. /tmp/kuairec_synth), not shared/")
    ap.add_argument("--rows", type=int, default=N_ROWS)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if "shared" in args.dir.resolve().parts:
        raise SystemExit("refusing to write a synthetic file into a shared data folder")
    path = args.dir / "kuairec" / "KuaiRec.zip"
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as zf:
        for name, data in build(args.rows, args.seed).items():
            zf.writestr(name, data)
    print(f"wrote {path} ({path.stat().st_size / 2**20:.0f} MiB, {args.rows} rows)")


if __name__ == "__main__":
    main()
