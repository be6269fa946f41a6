// Compares two strings from offsets as Postgres compares `collate "C"` text: by code point (UTF-8 byte order). JS
// compares UTF-16 code units, which differ from code points only between a surrogate and a unit above U+E000.
export function compareC(a: string, ai: number, b: string, bi: number): number {
  const la = a.length;
  const lb = b.length;
  while (ai < la && bi < lb) {
    let x = a.charCodeAt(ai++);
    let y = b.charCodeAt(bi++);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
        y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
      }
      return x - y;
    }
  }
  return la - ai - (lb - bi);
}
