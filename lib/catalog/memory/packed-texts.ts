// Texts by slot packed as UTF-8 in one growing buffer, outside the JavaScript heap: a million labels are a few tens
// of MB that the garbage collector never walks, where a million strings would be a million objects it marks and
// moves. A text set again is appended; the space it left is reclaimed by copying the live texts once it is more than
// half of the buffer.
export class PackedTexts {
  private bytes = Buffer.allocUnsafe(1 << 16);
  private start = new Int32Array(0);
  private length = new Int32Array(0);
  /** Bytes used at the buffer's start, and how many of them no slot holds any more. */
  private used = 0;
  private garbage = 0;

  /** The text of a slot ('' when never set). */
  get(slot: number): string {
    const n = this.length[slot] ?? 0;
    if (n === 0) return "";
    const s = this.start[slot]!;
    return this.bytes.toString("utf8", s, s + n);
  }

  /** The UTF-8 bytes of a slot's text (none when never set or empty): a view that stays as it is, since bytes
   * written are never written again (a text set again is appended, and reclaiming copies into a new buffer). */
  bytesOf(slot: number): Uint8Array | undefined {
    const n = this.length[slot] ?? 0;
    if (n === 0) return undefined;
    const s = this.start[slot]!;
    return this.bytes.subarray(s, s + n);
  }

  /** Sets a slot's text (slots are small, dense integers). */
  set(slot: number, text: string): void {
    if (slot >= this.start.length) this.widen(slot + 1);
    this.garbage += this.length[slot]!;
    this.length[slot] = 0;
    if (text === "") return;
    const n = Buffer.byteLength(text, "utf8");
    if (this.used + n > this.bytes.length) this.makeRoom(n);
    this.bytes.write(text, this.used, "utf8");
    this.start[slot] = this.used;
    this.length[slot] = n;
    this.used += n;
  }

  /** Forgets a slot's text (its slot freed). */
  clear(slot: number): void {
    if (slot < this.length.length) {
      this.garbage += this.length[slot]!;
      this.length[slot] = 0;
    }
  }

  /** Bytes held: the buffer and the two offsets per slot. */
  get approximateBytes(): number {
    return this.bytes.length + 8 * this.start.length;
  }

  private widen(size: number): void {
    const next = Math.max(size, Math.ceil(this.start.length * 1.25) + 16);
    const start = new Int32Array(next);
    const length = new Int32Array(next);
    start.set(this.start);
    length.set(this.length);
    this.start = start;
    this.length = length;
  }

  // Room for `n` more bytes: the live texts copied to the front when the garbage is over half, the buffer grown
  // (doubled at least) when they still do not leave room.
  private makeRoom(n: number): void {
    const live = this.used - this.garbage;
    const size =
      this.garbage > this.used / 2 && live + n <= this.bytes.length
        ? this.bytes.length
        : Math.max(2 * this.bytes.length, live + n);
    const next = Buffer.allocUnsafe(size);
    let at = 0;
    for (let slot = 0; slot < this.start.length; slot++) {
      const len = this.length[slot]!;
      if (len === 0) continue;
      this.bytes.copy(next, at, this.start[slot]!, this.start[slot]! + len);
      this.start[slot] = at;
      at += len;
    }
    this.bytes = next;
    this.used = at;
    this.garbage = 0;
  }
}
