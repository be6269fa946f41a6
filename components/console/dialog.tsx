"use client";
// The console's modal dialog (the native <dialog>: the rest of the page inert, Escape closes it), its button row, and
// the confirmation of a destructive action built from both. A destructive dialog opens on its Cancel button (marked
// data-dialog="cancel"); any other on its first control, as the browser does.
import { useEffect, useId, useRef, type ReactNode } from "react";
import { FormError } from "./field";

// The dialog: its title, its content, and the error of its action inside it.
export function Dialog(props: {
  open: boolean;
  title: string;
  onClose: () => void;
  error: string | null;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  // Set while a close this component asked for has its close event still to come (the browser fires it in a task of
  // its own, after the state that closed the dialog).
  const closing = useRef(false);
  const titleId = useId();
  const { open } = props;
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      dialog.querySelector<HTMLElement>('[data-dialog="cancel"]')?.focus();
    } else if (!open && dialog.open) {
      closing.current = true;
      dialog.close();
    }
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="key-dialog"
      aria-labelledby={titleId}
      // Escape: the state closes the dialog, not the browser alone. Closed natively, the dialog was hidden before its
      // close event reached the state, and a click on the button that opens it in between (keyboard users are that
      // quick: console.spec's keyboard test, CI 08:45) set an open state that the close event then undid.
      onCancel={(e) => {
        e.preventDefault();
        props.onClose();
      }}
      // A close the browser made on its own (an Escape it would not let the page cancel) closes the state too; the
      // close event of a close the state made is not passed on: a dialog opened again in between (Escape, then Enter
      // on the button at once: console.spec's keyboard test, CI 11:55) would be closed by it.
      onClose={() => {
        if (closing.current) closing.current = false;
        else props.onClose();
      }}
    >
      {open ? (
        <>
          <h2 id={titleId}>{props.title}</h2>
          {props.children}
          <FormError text={props.error} />
        </>
      ) : null}
    </dialog>
  );
}

// A dialog's buttons: its action (a danger one, or the primary one; without onAction it submits the dialog's form),
// then Cancel, which has the focus first when the action is a danger.
export function DialogButtons(props: {
  action: string;
  danger?: boolean;
  busy: boolean;
  onAction?: () => void;
  onCancel: () => void;
}) {
  return (
    <div className="row-actions">
      <button
        type={props.onAction ? "button" : "submit"}
        className={props.danger ? "secondary danger" : "primary"}
        disabled={props.busy}
        onClick={props.onAction}
      >
        {props.action}
      </button>
      <button
        type="button"
        className="secondary"
        data-dialog={props.danger ? "cancel" : undefined}
        onClick={props.onCancel}
      >
        Cancel
      </button>
    </div>
  );
}

// A destructive action's confirmation: what it does, then the action and Cancel.
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  action: string;
  busy: boolean;
  error: string | null;
  onConfirm: () => void;
  onClose: () => void;
  /** What the action does, in a sentence or two. */
  children: ReactNode;
}) {
  return (
    <Dialog open={props.open} title={props.title} onClose={props.onClose} error={props.error}>
      <p>{props.children}</p>
      <DialogButtons
        action={props.action}
        danger
        busy={props.busy}
        onAction={props.onConfirm}
        onCancel={props.onClose}
      />
    </Dialog>
  );
}
