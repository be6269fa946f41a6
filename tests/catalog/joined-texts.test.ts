import { describe, expect, it } from "vitest";
import { JoinedTexts } from "@/lib/catalog/memory/joined-texts";

// JoinedTexts alone: every search, kept or not, finds exactly the texts holding the term (brute force), skips the
// slots asked, and what it keeps stays within its bound.

const WORDS = ["lampe", "chaise", "table", "rare", "étagère", "pm-1", "a"];
const texts = Array.from(
  { length: 5_000 },
  (_, i) => `pm-${i}\u001f${WORDS[i % 5]} ${WORDS[(i * 7) % 6]} ${i % 97}`,
);
const slots = Array.from(texts.keys()).reverse();

function found(j: JoinedTexts, q: string, skip: Set<number> = new Set()): number[] {
  const out: number[] = [];
  j.forEachContaining(q, skip, (s) => out.push(s));
  return out.sort((a, b) => a - b);
}
const brute = (q: string, skip: Set<number> = new Set()) =>
  slots.filter((s) => !skip.has(s) && texts[s]!.includes(q)).sort((a, b) => a - b);

describe("JoinedTexts", () => {
  it("finds the same slots searched the first time and again, and skips the slots asked", () => {
    const j = new JoinedTexts(slots, (s) => texts[s]!);
    const skip = new Set([3, 10, 4_999, 250]);
    for (const q of [...WORDS, "pm-42", "zzz", "5 "]) {
      expect(found(j, q), q).toEqual(brute(q));
      expect(found(j, q), `${q}, again`).toEqual(brute(q));
      expect(found(j, q, skip), `${q}, skipping`).toEqual(brute(q, skip));
    }
  });

  it("keeps at most its bound, the least recently searched dropped first, and still answers exactly", () => {
    const j = new JoinedTexts(slots, (s) => texts[s]!, 8_000);
    for (const q of ["lampe", "chaise", "table", "lampe", "rare", "pm-1", "lampe"]) {
      expect(found(j, q), q).toEqual(brute(q));
      expect(j.keptSlots).toBeLessThanOrEqual(8_000);
    }
    // "a" holds most texts: over a quarter of the bound, never kept.
    const before = j.keptSlots;
    expect(found(j, "a")).toEqual(brute("a"));
    expect(j.keptSlots).toBe(before);
    expect(before).toBeGreaterThan(0);
  });
});
