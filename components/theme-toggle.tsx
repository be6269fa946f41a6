"use client";

import { useState } from "react";

// The themes a reader can choose; "system" follows the operating system.
export type Theme = "system" | "light" | "dark";

const NEXT: Record<Theme, Theme> = { system: "light", light: "dark", dark: "system" };

// The word the button shows for each theme; its accessible name starts with it, as the words a reader sees must be
// part of the name a voice command or a screen reader uses (WCAG 2.5.3, axe's label-content-name-mismatch).
const LABEL: Record<Theme, string> = { system: "Auto", light: "Light", dark: "Dark" };

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
  return (
    <button
      type="button"
      className="theme-toggle"
      onClick={change}
      aria-label={`Theme: ${LABEL[theme]}. Switch to ${LABEL[NEXT[theme]]}`}
      title={`Theme: ${theme}`}
    >
      <span aria-hidden="true">{theme === "dark" ? "☾" : theme === "light" ? "☀" : "◐"}</span>
      <span className="theme-toggle-label">{LABEL[theme]}</span>
    </button>
  );
}
