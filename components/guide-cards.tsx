import Link from "next/link";
import { getGuides } from "@/lib/portal/guides";

// The guides as cards (landing page and guides index).
export function GuideCards() {
  return (
    <ul className="cards">
      {getGuides().map((g) => (
        <li key={g.slug} className="card">
          <h3>
            <Link href={`/docs/${g.slug}`}>{g.title}</Link>
          </h3>
          <p>{g.description}</p>
        </li>
      ))}
    </ul>
  );
}
