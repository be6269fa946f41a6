"use client";

import { useState } from "react";

// The themes a reader can choose; "system" follows the operating system.
export type Theme = "system" | "light" | "dark";

const NEXT: Record<Theme, Theme> = { system: "light", light: "dark", dark: "system" };

// A button that cycles system → light → dark, remembered in a cookie so the server renders the right theme.
export function ThemeToggle({ initial }: { initial: Theme }) {
  const [theme, setTheme] = useState<Theme>(initial);
  function change() {
    const next = NEXT[theme];
    setTheme(next);
    if (next === "system") delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = next;
    document.cookie = `theme=${next}; path=/; max-age=31536000; samesite=lax`;
  }
  const label = theme === "system" ? "Auto" : theme === "light" ? "Light" : "Dark";
  return (
    <button
      type="button"
      className="theme-toggle"
      onClick={change}
      // Holds the visible label (WCAG 2.5.3 Label in Name; axe's label-content-name-mismatch).
      aria-label={`Theme: ${label}. Switch to ${NEXT[theme]}`}
      title={`Theme: ${theme}`}
    >
      <span aria-hidden="true">{theme === "dark" ? "☾" : theme === "light" ? "☀" : "◐"}</span>
      <span className="theme-toggle-label">{label}</span>
    </button>
  );
}
