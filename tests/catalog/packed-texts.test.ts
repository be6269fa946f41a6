import { describe, expect, it } from "vitest";
import { PackedTexts } from "@/lib/catalog/memory/packed-texts";
import { randomSource } from "@/lib/seeded-random";

// PackedTexts against a plain array of strings, through sets, clears and the compactions they cause.
describe("PackedTexts", () => {
  it("gives back every text set, through growth and compaction", () => {
    const random = randomSource(42);
    const packed = new PackedTexts();
    const plain: string[] = [];
    const words = ["", "a", "Étagère", "Œuvre – d'art", "𝔘nicode 😀", "x".repeat(3_000), "chaise \u0000 nul"];
    for (let step = 0; step < 60_000; step++) {
      const slot = Math.floor(random() * 2_000);
      if (random() < 0.1) {
        packed.clear(slot);
        plain[slot] = "";
      } else {
        const text = `${words[Math.floor(random() * words.length)]}${step % 97}`;
        packed.set(slot, text);
        plain[slot] = text;
      }
    }
    for (let slot = 0; slot < 2_100; slot++) expect(packed.get(slot), String(slot)).toBe(plain[slot] ?? "");
    // Rewritten texts are reclaimed: the buffer stays near what the live texts take.
    const live = plain.reduce((n, t) => n + Buffer.byteLength(t ?? ""), 0);
    expect(packed.approximateBytes).toBeLessThan(4 * live + 64 * 1024);
  });
});
