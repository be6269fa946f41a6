"use client";

import { usePathname } from "next/navigation";
import { useId, useRef, useState, type ReactNode } from "react";
import { useHydrated } from "./use-hydrated";

// The navigation of guides and reference: a sidebar on wide screens; on narrow ones (app/globals.css) one button
// that opens and closes the list, so that the page's content comes first on a phone. Following a link lands on a page
// with the list closed again; Escape closes it. The button is disabled until React has attached (nothing to click
// before); without scripting the list is simply shown.
export function DocsNav({ label, children }: { label: string; children: ReactNode }) {
  const pathname = usePathname();
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;
  const hydrated = useHydrated();
  const listId = useId();
  const button = useRef<HTMLButtonElement>(null);
  return (
    <nav
      className="sidebar"
      aria-label={label}
      data-open={open ? "" : undefined}
      onKeyDown={(e) => {
        if (e.key === "Escape" && open) {
          setOpenOn(null);
          button.current?.focus();
        }
      }}
    >
      <button
        ref={button}
        type="button"
        className="sidebar-toggle"
        aria-expanded={open}
        aria-controls={listId}
        disabled={!hydrated}
        onClick={() => setOpenOn(open ? null : pathname)}
      >
        Guides and reference
        <span aria-hidden="true" className="sidebar-toggle-mark">
          {open ? "▴" : "▾"}
        </span>
      </button>
      <div id={listId} className="sidebar-links">
        {children}
      </div>
    </nav>
  );
}
