// The runtime's parts (lib/runtime.ts definePart/part): each area's state built once on first use, found by name
// from any copy of the area's module, and closed with the runtime in the reverse order of building.
import { describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/config";
import { createRuntime, definePart } from "@/lib/runtime";

describe("runtime parts", () => {
  it("builds a part once, shares it across copies of its declaration, and closes parts in reverse", async () => {
    const rt = createRuntime(loadConfig({ RATE_LIMIT_ENABLED: "false" }));
    const closed: string[] = [];
    let built = 0;
    const first = definePart(
      "test:first",
      (r) => ({ built: ++built, sameRuntime: r === rt }),
      async () => void closed.push("first"),
    );
    // A second copy of the same declaration (another bundle's module): the same part.
    const copy = definePart("test:first", () => ({ built: -1, sameRuntime: false }));
    const second = definePart(
      "test:second",
      () => ({}),
      async () => void closed.push("second"),
    );
    const a = rt.part(first);
    expect(a).toEqual({ built: 1, sameRuntime: true });
    expect(rt.part(first)).toBe(a);
    expect(rt.part(copy)).toBe(a);
    rt.part(second);
    await rt.close();
    expect(closed).toEqual(["second", "first"]);
  });
});
