// Ids interned to small numbers, with a counter per id (the products of a family, of a category) and a label (the
// family's or category's, as the products last read with it showed it).
export class Interned {
  private readonly numbers = new Map<string, number>();
  private readonly values: string[] = [];
  private readonly counts: number[] = [];
  private readonly labels: string[] = [];
  /** The number of a value (a new one when never seen), its label set when given. */
  id(value: string, label?: string): number {
    let n = this.numbers.get(value);
    if (n === undefined) {
      n = this.counts.length;
      this.numbers.set(value, n);
      this.values.push(value);
      this.counts.push(0);
      this.labels.push("");
    }
    if (label !== undefined) this.labels[n] = label;
    return n;
  }
  /** The number of a value, or -1 when never seen (no product has it). */
  peek(value: string): number {
    return this.numbers.get(value) ?? -1;
  }
  value(n: number): string {
    return this.values[n]!;
  }
  label(n: number): string {
    return this.labels[n]!;
  }
  add(n: number, by: number): void {
    this.counts[n] = this.counts[n]! + by;
  }
  count(value: string): number {
    const n = this.numbers.get(value);
    return n === undefined ? 0 : this.counts[n]!;
  }
}
