// A console form's field and error line, one markup for every form: the label, the control, its error (next to it,
// linked to it, in words) and its help text; and the error about the whole form, announced above its button.
import type { ReactNode } from "react";

// What a field's control spreads: the ids of its error and help text, and whether it is invalid.
export interface FieldAria {
  "aria-describedby": string | undefined;
  "aria-invalid": true | undefined;
}

// One field: the label, the control, its error and its help text. A control that may be invalid or that has help is
// given as a function of the attributes that link it to them.
export function Field(props: {
  id: string;
  label: string;
  help?: ReactNode;
  error?: string | null;
  children: ReactNode | ((aria: FieldAria) => ReactNode);
}) {
  const ids = [props.error ? `${props.id}-error` : null, props.help ? `${props.id}-help` : null].filter(
    Boolean,
  );
  const { children } = props;
  return (
    <div className="field">
      <label htmlFor={props.id}>{props.label}</label>
      {typeof children === "function"
        ? children({
            "aria-describedby": ids.length ? ids.join(" ") : undefined,
            "aria-invalid": props.error ? true : undefined,
          })
        : children}
      {props.error ? (
        <p id={`${props.id}-error`} className="field-error">
          {props.error}
        </p>
      ) : null}
      {props.help ? (
        <p id={`${props.id}-help`} className="help">
          {props.help}
        </p>
      ) : null}
    </div>
  );
}

// An error about a whole form or action (no field of its own), announced when it appears; nothing without one.
export function FormError({ text }: { text: string | null | undefined }) {
  return text ? (
    <p className="error-text" role="alert">
      {text}
    </p>
  ) : null;
}

// A form's end: its error (no field of its own), its status line where it has one (always on the page, so that what it
// says is announced), and its submit button, any other button after it.
export function FormFooter(props: {
  error: string | null | undefined;
  notice?: string;
  submit: string;
  /** The submit button's class: "primary" unless told. */
  className?: string;
  disabled: boolean;
  children?: ReactNode;
}) {
  return (
    <>
      <FormError text={props.error} />
      {props.notice !== undefined ? (
        <p role="status" className="notice-text">
          {props.notice}
        </p>
      ) : null}
      <div className="actions">
        <button type="submit" className={props.className ?? "primary"} disabled={props.disabled}>
          {props.submit}
        </button>
        {props.children}
      </div>
    </>
  );
}
