"""cluster/client.py: the words for a version mismatch, and the readers of dd."""

import pytest


def versions(sandbox, scheduler, *workers):
    return {'sandbox': sandbox, 'scheduler': scheduler, 'workers': list(workers)}


SAME = {'python': '3.14.8.final.0', 'dask': '2024.12.1+dfsg', 'distributed': '2024.12.1', 'pandas': '2.3.3'}


def test_matching_versions_say_nothing(kernel):
    # a Debian suffix and the patch level of Python are no mismatch
    other = dict(SAME, dask='2024.12.1', python='3.14.2.final.0')
    assert kernel.cluster_mismatch(versions(SAME, other, other)) == ''


def test_a_mismatch_names_both_sides_and_what_to_do(kernel):
    old = dict(SAME, python='3.11.9.final.0', distributed='2024.1.0')
    words = kernel.cluster_mismatch(versions(SAME, SAME, old))
    assert 'a worker runs python 3.11.9' in words
    assert 'the sandbox python 3.14.8' in words
    assert 'a worker runs distributed 2024.1.0, the sandbox distributed 2024.12.1' in words
    assert 'quarry sandbox status' in words


def test_the_scheduler_is_named_before_the_workers(kernel):
    words = kernel.cluster_mismatch(versions(SAME, dict(SAME, dask='2025.1.0'), dict(SAME, dask='2025.1.0')))
    assert words.startswith('the scheduler runs dask 2025.1.0')
    assert words.count('dask 2025.1.0') == 1


def test_missing_versions_are_no_mismatch(kernel):
    assert kernel.cluster_mismatch(versions(SAME, {}, {})) == ''


def test_result_sizes_read_as_people_write_them(kernel):
    assert kernel._cluster_bytes(512) == '512 bytes'
    assert kernel._cluster_bytes(268435456) == '268.4 MB'


def test_dd_builds_readers_on_a_worker_and_keeps_the_rest(kernel):
    pytest.importorskip('dask.dataframe')
    dd = kernel.cluster_dd()
    import dask.dataframe as real

    assert dd.from_pandas is real.from_pandas
    assert dd.read_parquet is not real.read_parquet
    assert dd.read_parquet.__name__ == 'read_parquet'
    kernel.cluster.client = None
    kernel.cluster.error = 'the Dask scheduler tcp://x:8786 did not answer'
    with pytest.raises(kernel.ClusterError, match='did not answer'):
        dd.read_csv('/cluster/x.csv')
