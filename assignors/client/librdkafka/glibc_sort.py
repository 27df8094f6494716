"""glibc's `qsort`, step for step: librdkafka sorts members with a comparator that is not a total order,
so the algorithm's exact comparisons decide the result.

glibc 2.36 stdlib/msort.c `msort_with_tmp` (and 2.37 to 2.42, stdlib/qsort.c since 2.39: the same
recursion and tie rule): a top-down merge sort that splits n into n // 2 and the rest, sorts both halves,
then merges, taking the left element while `cmp(left, right) <= 0`. Elements larger than 32 bytes are
sorted through an array of pointers with the same comparisons, so the order is the same. glibc falls back
to `_quicksort` (2.36) or heapsort (2.39+) only when the temporary buffer cannot be allocated, which an
assignor-sized array never meets; that path is not modelled. musl, macOS/BSD and Windows have other
qsort algorithms and give other orders for such comparators; they are not modelled either.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

T = TypeVar("T")


def glibc_qsort(items: Iterable[T], cmp: Callable[[T, T], int]) -> list[T]:
    """A new list: `items` as glibc's `qsort(items, n, size, cmp)` leaves them."""
    values = list(items)
    _merge_sort(values, 0, len(values), cmp)
    return values


def _merge_sort(values: list[T], low: int, count: int, cmp: Callable[[T, T], int]) -> None:
    """glibc: stdlib/msort.c `msort_with_tmp`."""
    if count <= 1:
        return
    left_count = count // 2
    _merge_sort(values, low, left_count, cmp)
    _merge_sort(values, low + left_count, count - left_count, cmp)
    i, left_end = low, low + left_count
    j, right_end = left_end, low + count
    merged: list[T] = []
    while i < left_end and j < right_end:
        if cmp(values[i], values[j]) <= 0:
            merged.append(values[i])
            i += 1
        else:
            merged.append(values[j])
            j += 1
    merged.extend(values[i:left_end])  # the right run's rest is already in place
    values[low : low + len(merged)] = merged
