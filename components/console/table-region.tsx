import type { ReactNode } from "react";

// A console table in a labelled region that scrolls sideways when the table is wider than the screen, in the tab
// order so that a keyboard can scroll it (WCAG 2.1.1; axe's scrollable-region-focusable). Styles: console.css.
export function TableRegion({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-region" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
