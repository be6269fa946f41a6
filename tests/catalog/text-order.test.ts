import { describe, expect, it } from "vitest";
import { compareC } from "@/lib/catalog/memory/text-order";

// The index places a changed product by comparing texts as Postgres' `collate "C"` does: by UTF-8 bytes. JS compares
// UTF-16 code units, which differ from bytes between a character above U+FFFF (a surrogate pair) and one in
// U+E000–U+FFFF.
describe("compareC", () => {
  const bytes = (a: string, b: string) => Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const sign = (a: string, b: string) => Math.sign(compareC(a, 0, b, 0));

  it("orders a character above U+FFFF after one in U+E000–U+FFFF, as UTF-8 does", () => {
    expect("𝔘" < "\uff21").toBe(true); // JS's own order
    expect(sign("𝔘", "\uff21")).toBe(1);
    expect(bytes("𝔘", "\uff21")).toBe(1);
  });

  it("agrees with byte order on random texts, prefixes and offsets included", () => {
    const alphabet = ["a", "b", "é", "Œ", "\ue000", "\uffee", "𝔘", "😀", "\u001f", "-", " "];
    let seed = 42;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const text = () => Array.from({ length: rnd(6) }, () => alphabet[rnd(alphabet.length)]).join("");
    for (let i = 0; i < 5000; i++) {
      const a = text();
      const b = rnd(4) === 0 ? a + text() : text();
      expect(sign(a, b), `${a} / ${b}`).toBe(bytes(a, b));
      expect(Math.sign(compareC(`x\u001f${a}`, 2, `yy\u001f${b}`, 3))).toBe(bytes(a, b));
    }
  });
});
