import { renderInlineMarkdown, renderMarkdown } from "@/lib/portal/markdown";

// Markdown rendered on the server (raw HTML escaped, unsafe links neutralised).
export function Markdown({ source, className = "prose" }: { source: string; className?: string }) {
  return <div className={className} dangerouslySetInnerHTML={{ __html: renderMarkdown(source) }} />;
}

// One line of markdown rendered inline.
export function InlineMarkdown({ source }: { source: string }) {
  return <span dangerouslySetInnerHTML={{ __html: renderInlineMarkdown(source) }} />;
}
