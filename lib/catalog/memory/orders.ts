// An order: slots in an Int32Array, its first `size` used, ascending by `cmp`. Moved in place one slot at a time, or
// rebuilt by a merge when many change at once.
type Compare = (a: number, b: number) => number;

// The first position whose slot sorts at or after `slot` (binary search).
function lowerBound(order: Int32Array, size: number, slot: number, cmp: Compare): number {
  let lo = 0;
  let hi = size;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(order[mid]!, slot) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Takes a slot out (its keys those it was placed with); false when it is not where they sort. */
export function removeSlot(order: Int32Array, size: number, slot: number, cmp: Compare): boolean {
  const at = lowerBound(order, size, slot, cmp);
  if (order[at] !== slot) return false;
  order.copyWithin(at, at + 1, size);
  return true;
}

/** Takes several slots out, keeping the others' order. */
export function withoutSlots(order: Int32Array, size: number, slots: ReadonlySet<number>): void {
  let w = 0;
  for (let r = 0; r < size; r++) if (!slots.has(order[r]!)) order[w++] = order[r]!;
}

/** Puts a slot at its place (the array has room for one more). */
export function insertSlot(order: Int32Array, size: number, slot: number, cmp: Compare): void {
  const at = lowerBound(order, size, slot, cmp);
  order.copyWithin(at + 1, at, size);
  order[at] = slot;
}

/** The array one slot longer (its last slot unset), over the same memory when it has room, else a copy with room for
 * more: an order (or a set of slots) that grows one slot at a time. */
export function withRoom(order: Int32Array): Int32Array {
  const n = order.length;
  if (order.byteOffset === 0 && order.buffer.byteLength >= (n + 1) * 4)
    return new Int32Array(order.buffer, 0, n + 1);
  const out = new Int32Array(Math.ceil(n * 1.25) + 16).subarray(0, n + 1);
  out.set(order);
  return out;
}

/** A new order of the same capacity: the order's slots and the added ones, merged. */
export function mergeSlots(
  order: Int32Array,
  size: number,
  added: readonly number[],
  cmp: Compare,
): Int32Array {
  const sorted = [...added].sort(cmp);
  const merged = new Int32Array(order.length);
  let i = 0;
  let j = 0;
  let w = 0;
  while (i < size || j < sorted.length) {
    if (j >= sorted.length || (i < size && cmp(order[i]!, sorted[j]!) < 0)) merged[w++] = order[i++]!;
    else merged[w++] = sorted[j++]!;
  }
  return merged;
}
