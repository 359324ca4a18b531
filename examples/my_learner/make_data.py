"""Writes sensors.csv, the stream this example ships (run once; the config pins its hash).

6,000 readings of four sensors, three machine states (idle, load, fault) whose signatures
drift slowly: the centres move along a fixed direction over the stream.
"""
from __future__ import annotations

import numpy as np

rng = np.random.default_rng(2024)
n, states = 6000, np.array(["idle", "load", "fault"])
centres = np.array([[0.0, 0.0, 1.0, 0.5], [1.5, 1.0, 0.0, 0.0], [0.5, 2.0, 1.5, 1.0]])
drift = np.array([[1.0, -0.5, 0.0, 0.5], [-0.5, 0.5, 1.0, 0.0], [0.0, -1.0, 0.5, 1.0]])
y = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
t = np.arange(n)[:, None] / n
X = centres[y] + t * drift[y] + 0.6 * rng.normal(size=(n, 4))
with open("sensors.csv", "w") as fh:
    fh.write("temp,vibration,current,noise,state\n")
    for xi, yi in zip(X, y, strict=True):
        fh.write(",".join(f"{v:.4f}" for v in xi) + f",{states[yi]}\n")
