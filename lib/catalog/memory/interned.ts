// Ids interned to small numbers, with a counter per id (the products of a family, of a category).
export class Interned {
  private readonly numbers = new Map<string, number>();
  private readonly counts: number[] = [];
  id(value: string): number {
    let n = this.numbers.get(value);
    if (n === undefined) {
      n = this.counts.length;
      this.numbers.set(value, n);
      this.counts.push(0);
    }
    return n;
  }
  /** The number of a value, or -1 when never seen (no product has it). */
  peek(value: string): number {
    return this.numbers.get(value) ?? -1;
  }
  add(n: number, by: number): void {
    this.counts[n] = this.counts[n]! + by;
  }
  count(value: string): number {
    const n = this.numbers.get(value);
    return n === undefined ? 0 : this.counts[n]!;
  }
}
