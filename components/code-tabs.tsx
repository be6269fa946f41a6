"use client";

import { useId, useRef, useState, type KeyboardEvent } from "react";
import { CopyButton } from "./copy-button";

// One tab of code: its label and source.
export interface CodeTab {
  id: string;
  label: string;
  code: string;
}

// Code samples in keyboard-usable tabs (arrow keys move between tabs), each with a copy button.
export function CodeTabs({ tabs, title }: { tabs: CodeTab[]; title: string }) {
  const [active, setActive] = useState(0);
  const base = useId();
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  function onKey(e: KeyboardEvent<HTMLDivElement>) {
    const delta = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
    if (!delta && e.key !== "Home" && e.key !== "End") return;
    e.preventDefault();
    const next =
      e.key === "Home" ? 0 : e.key === "End" ? tabs.length - 1 : (active + delta + tabs.length) % tabs.length;
    setActive(next);
    refs.current[next]?.focus();
  }
  const tab = tabs[active]!;
  return (
    <div className="code-tabs">
      <div className="code-tabs-bar">
        <div role="tablist" aria-label={title} onKeyDown={onKey}>
          {tabs.map((t, i) => (
            <button
              key={t.id}
              ref={(el) => {
                refs.current[i] = el;
              }}
              type="button"
              role="tab"
              id={`${base}-tab-${t.id}`}
              aria-selected={i === active}
              aria-controls={`${base}-panel`}
              tabIndex={i === active ? 0 : -1}
              onClick={() => setActive(i)}
            >
              {t.label}
            </button>
          ))}
        </div>
        <CopyButton text={tab.code} label={`Copy ${tab.label}`} />
      </div>
      <pre
        role="tabpanel"
        id={`${base}-panel`}
        aria-labelledby={`${base}-tab-${tab.id}`}
        tabIndex={0}
        className="code"
        data-language={tab.id}
      >
        <code>{tab.code}</code>
      </pre>
    </div>
  );
}
