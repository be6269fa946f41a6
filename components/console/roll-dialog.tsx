"use client";
// The keys page's roll dialog: the old key's grace period, then "Roll" (a new key with the same name and scopes).
import { useState } from "react";
import type { ApiKeySummary } from "@/lib/keys/store";
import { Dialog, DialogButtons } from "./dialog";
import { Field } from "./field";

// Roll: the old key's grace period, then "Roll".
export function RollDialog(props: {
  pending: ApiKeySummary | null;
  graceOptions: Array<{ seconds: number; label: string }>;
  busy: boolean;
  error: string | null;
  onRoll: (key: ApiKeySummary, graceSeconds: number) => void;
  onClose: () => void;
}) {
  const [grace, setGrace] = useState(props.graceOptions[0]?.seconds ?? 86_400);
  const key = props.pending;
  return (
    <Dialog
      open={key !== null}
      title={key ? `Roll “${key.name}”` : ""}
      onClose={props.onClose}
      error={props.error}
    >
      <p>A new key with the same name and scopes replaces it; its secret is shown once.</p>
      <Field id="roll-grace" label="Old key keeps working for">
        <select id="roll-grace" value={grace} onChange={(e) => setGrace(Number(e.target.value))}>
          {props.graceOptions.map((g) => (
            <option key={g.seconds} value={g.seconds}>
              {g.label}
            </option>
          ))}
        </select>
      </Field>
      <DialogButtons
        action="Roll"
        busy={props.busy}
        onAction={() => key && props.onRoll(key, grace)}
        onCancel={props.onClose}
      />
    </Dialog>
  );
}
