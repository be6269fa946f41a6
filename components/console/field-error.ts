// Where a console error belongs: the server names an invalid field by its code at the start of its message
// ("expiresAt: The expiry must be in the future.", "scopes.0: …"); a form shows it next to that field, in words, and
// anything else (no field, or one the form does not have) above its submit button.
import { useEffect } from "react";

// A console error split into the form field it is about (null: the whole form) and the text to show.
export interface FieldError {
  field: string | null;
  text: string;
}

// Splits a console error message; `fields` are the field codes the form has.
export function splitFieldError(message: string, fields: readonly string[]): FieldError {
  const m = /^([A-Za-z]\w*)(?:\.[\w.]+)?: ([\s\S]+)$/.exec(message.trim());
  if (!m || !fields.includes(m[1]!)) return { field: null, text: message };
  const text = m[2]!.trim();
  return { field: m[1]!, text: text.charAt(0).toUpperCase() + text.slice(1) };
}

// A form's error, placed: the text next to each field (`of`) and the rest above its button (`form`); `text` whatever its
// place. Each time an error
// comes, the invalid field's input (`inputs`: a field code's input id) takes the focus, so that its label, value and
// message are read together. `error`: the client's own check, or the server's message.
export function useFieldErrors<F extends string>(
  error: FieldError | string | null,
  inputs: Record<F, string>,
) {
  const split = typeof error === "string" ? splitFieldError(error, Object.keys(inputs)) : error;
  const input = split?.field ? inputs[split.field as F] : null;
  useEffect(() => {
    if (input) document.getElementById(input)?.focus();
  }, [input, error]);
  return {
    of: (field: F) => (split?.field === field ? split.text : null),
    form: split && !split.field ? split.text : null,
    text: split?.text ?? null,
  };
}
