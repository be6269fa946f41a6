import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { DocsShell } from "@/components/docs-shell";
import { Markdown } from "@/components/markdown";
import { getGuide, getGuides } from "@/lib/portal/guides";

type Props = { params: Promise<{ slug: string }> };

// Title and description of one guide.
export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const guide = getGuide((await params).slug);
  return guide ? { title: guide.title, description: guide.description } : { title: "Not found" };
}

// One guide, rendered from its markdown.
export default async function GuidePage({ params }: Props) {
  const { slug } = await params;
  const guide = getGuide(slug);
  if (!guide) notFound();
  const guides = getGuides();
  const i = guides.findIndex((g) => g.slug === slug);
  const prev = guides[i - 1];
  const next = guides[i + 1];
  return (
    <DocsShell current={`/docs/${slug}`}>
      <article>
        <h1>{guide.title}</h1>
        <p className="lead">{guide.description}</p>
        <Markdown source={guide.markdown} />
      </article>
      <nav aria-label="Guides" className="cta">
        {prev ? (
          <Link className="button-link" href={`/docs/${prev.slug}`}>
            ← {prev.title}
          </Link>
        ) : null}
        {next ? (
          <Link className="button-link" href={`/docs/${next.slug}`}>
            {next.title} →
          </Link>
        ) : (
          <Link className="button-link" href="/reference">
            API reference →
          </Link>
        )}
      </nav>
    </DocsShell>
  );
}
