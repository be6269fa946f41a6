// Where a console error belongs: the server names an invalid field by its code at the start of its message
// ("expiresAt: The expiry must be in the future.", "scopes.0: …"); a form shows it next to that field, in words, and
// anything else (no field, or one the form does not have) above its submit button.

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
