"""``streamlearn check``: the conformance checks of a learner, in words."""

from __future__ import annotations

from typing import Annotated

import typer

from streamlearn.cli._common import console
from streamlearn.errors import UserError


def check(
    learner: Annotated[str, typer.Argument(
        help="A registered algorithm name or a dotted path 'package.module:Class'.")],
    param: Annotated[list[str] | None, typer.Option(
        "--param", "-p", help="A parameter for the checks, KEY=VALUE (VALUE read as YAML: "
        "0.1, true, null, text); repeat for several. Default: the learner's "
        "_test_params(), or its defaults.")] = None,
) -> None:
    """Run the conformance checks on a learner and say, in words, what fails.

    The checks are the ones every built-in learner passes, chosen by the learner's tags
    (streamlearn.checks): for a prequential learner valid predictions, learning an easy
    stream, reproducibility, inputs left unchanged, pickling, and predict_learn_many equal
    to the per-sample loop; for a node-incremental learner (tagged grows_on_split) the
    weights' shapes, the ridge solution, reproducibility, pickling, failures and capacity.
    Exit code 1 when any fails.
    """
    from rich.text import Text

    from streamlearn import components
    from streamlearn.checks import run_checks

    if learner.strip().startswith("river:"):  # as --add-learner and a config take it
        learner = components.river_entry({"river": learner.strip().removeprefix("river:")},
                                          "learner")["name"]
    cls = components.get_algorithm(learner)
    params = None
    if param:
        from streamlearn.config.loading import param_values

        params = param_values(param, keep_text=True)
        try:
            cls.check_param_names(params)
            cls(**params)
        except UserError as exc:
            raise UserError(f"--param: {exc}") from None
    else:
        try:
            cls(**next(iter(cls._test_params()), {}))
        except UserError as exc:
            raise UserError(f"{exc} Give the checks its parameters with --param KEY=VALUE."
                            ) from None
    results = run_checks(cls, params)
    n_param_sets = len({repr(r.params) for r in results})
    for r in results:
        what = r.description or r.check
        params = f" with {r.params}" if r.params and n_param_sets > 1 else ""
        if r.ok:
            console.print(Text.assemble(("PASS ", "green"), f"{r.check}{params}: {what}"))
        else:
            console.print(Text.assemble(("FAIL ", "bold red"), f"{r.check}{params}: {what}"))
            console.print(f"     problem: {r.message}", markup=False, highlight=False,
                          soft_wrap=True)
    failed = [r for r in results if not r.ok]
    console.print(f"{learner}: {len(results) - len(failed)} of {len(results)} checks passed.",
                  markup=False, highlight=False, soft_wrap=True)
    if failed:
        raise typer.Exit(1)
