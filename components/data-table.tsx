import type { ReactNode } from "react";

// A labelled table of the reference or the console, in the tab order: wider than its column (a phone), it scrolls
// sideways (app/globals.css), and a keyboard can only scroll what it can focus (WCAG 2.1.1, axe's
// scrollable-region-focusable).
export function DataTable({ label, children }: { label: string; children: ReactNode }) {
  return (
    <table aria-label={label} tabIndex={0}>
      {children}
    </table>
  );
}
