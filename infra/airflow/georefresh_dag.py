"""Nightly georefresh on Airflow: plan the shards, map one task over them, then finalize.

The logical date is Airflow's own: ``ds`` is the start of the run's data interval, so the 02:00 run on
2 December refreshes 1 December, and a re-run or a catch-up of an old run refreshes that run's date, never
today's. ``--trailing 3`` re-checks the two dates before it (settled partitions cost a GET and a HEAD).

georefresh's exit codes map to Airflow's retry rules: 1 (invalid), 2 (usage) and 3 (the store cannot be used as
set up) fail the task without retrying (AirflowFailException); 75 (store unreachable), 5 (failed) and 4
(superseded) raise AirflowException and so use the task's retries.

Set GEOREFRESH (the executable; default ``georefresh``) and GEOREFRESH_CONFIG in the worker's environment. In a
KubernetesExecutor or with KubernetesPodOperator, run the image from the repository's Dockerfile instead.
"""

from __future__ import annotations

import json
import os
import subprocess
from datetime import datetime, timedelta

from airflow.decorators import dag, task
from airflow.exceptions import AirflowException, AirflowFailException

DATASET = "us-counties"
SHARDS = 4
GEOREFRESH = os.environ.get("GEOREFRESH", "georefresh")
CONFIG = os.environ.get("GEOREFRESH_CONFIG", "/config/georefresh.config.json")
PERMANENT = {1: "invalid", 2: "usage error", 3: "the store cannot be used as set up"}


def window(ds: str) -> list[str]:
    return ["--dataset", DATASET, "--to", ds, "--trailing", "3", "--config", CONFIG]


def georefresh(args: list[str], capture: bool = False) -> str:
    done = subprocess.run([GEOREFRESH, *args], capture_output=capture, text=True)
    if done.returncode in PERMANENT:
        raise AirflowFailException(f"georefresh exited {done.returncode} ({PERMANENT[done.returncode]}): {done.stderr or ''}")
    if done.returncode != 0:
        raise AirflowException(f"georefresh exited {done.returncode}; retrying is safe: {done.stderr or ''}")
    return done.stdout or ""


@dag(
    dag_id="georefresh_nightly",
    schedule="0 2 * * *",
    start_date=datetime(2026, 1, 1),
    catchup=False,
    max_active_runs=1,
    default_args={"retries": 3, "retry_delay": timedelta(minutes=2), "retry_exponential_backoff": True},
    tags=["georefresh"],
)
def georefresh_nightly():
    @task
    def plan(ds: str | None = None) -> list[str]:
        shards = json.loads(georefresh(["backfill", *window(ds), "--list-shards", str(SHARDS), "--json"], capture=True))
        return [s["shard"] for s in shards if s["partitions"] > 0]

    @task
    def shard(shard: str, ds: str | None = None) -> None:
        georefresh(["backfill", *window(ds), "--shard", shard])

    @task
    def finalize(ds: str | None = None) -> None:
        georefresh(["finalize", *window(ds)])

    shards = shard.expand(shard=plan())
    shards >> finalize()


georefresh_nightly()
