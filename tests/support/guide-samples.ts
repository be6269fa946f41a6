import { expect } from "vitest";
import { renderMarkdown } from "@/lib/portal/markdown";

// A guide's runnable samples as its page shows them: the code blocks of the rendered HTML, entities decoded, each
// found by how it starts (exactly one block each) and checked to be the markdown's block as written.
export function guideSamples<K extends string>(
  markdown: string,
  starts: Record<K, string>,
): Record<K, string> {
  const html = renderMarkdown(markdown);
  const decode = (text: string) =>
    text
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&#x27;/g, "'")
      .replace(/&amp;/g, "&");
  const blocks = [...html.matchAll(/<pre[^>]*><code[^>]*>([\s\S]*?)<\/code><\/pre>/g)].map((m) =>
    decode(m[1]!),
  );
  const written = [...markdown.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => m[2]!);
  const out = {} as Record<K, string>;
  for (const [name, start] of Object.entries(starts) as [K, string][]) {
    const found = blocks.filter((b) => b.startsWith(start));
    expect(found, start).toHaveLength(1);
    expect(written, start).toContain(found[0]);
    out[name] = found[0]!;
  }
  return out;
}
