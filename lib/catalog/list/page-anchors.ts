import "server-only";

// Where a sorted list's row at a given position starts: its sort value (as text) and its id.
export interface Anchor {
  pos: number;
  sort: string;
  id: string;
}

interface Entry {
  version: string;
  anchors: Anchor[];
}

const PER_LIST = 64;

// Positions of rows in deep pages of a sorted list, remembered under the version of its resource they were read at, so
// a later deep page seeks from the nearest one (an index range from a key) instead of skipping every row before it.
// Exact for the same reason as the count cache: an anchor is used only while that version is unchanged.
export class AnchorCache {
  private readonly lists = new Map<string, Entry>();
  constructor(private readonly maxLists = 2_000) {}

  /** The remembered anchor at or before `pos` with the largest position, at this version. */
  nearest(list: string, version: string, pos: number): Anchor | undefined {
    const e = this.lists.get(list);
    if (!e || e.version !== version) return undefined;
    let best: Anchor | undefined;
    for (const a of e.anchors) if (a.pos <= pos && (!best || a.pos > best.pos)) best = a;
    return best;
  }

  set(list: string, version: string, anchor: Anchor): void {
    let e = this.lists.get(list);
    if (!e || e.version !== version) {
      e = { version, anchors: [] };
      this.lists.delete(list);
      this.lists.set(list, e);
      if (this.lists.size > this.maxLists) this.lists.delete(this.lists.keys().next().value!);
    }
    if (e.anchors.some((a) => a.pos === anchor.pos)) return;
    e.anchors.push(anchor);
    if (e.anchors.length > PER_LIST) e.anchors.shift();
  }
}
