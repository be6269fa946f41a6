// A new password, twice (the caller checks that both agree): the fields of "Change password" and of a reset link.
import { Field } from "./field";

export function NewPasswordFields(props: {
  id: string;
  name: string;
  confirmId: string;
  confirmName: string;
  autoFocus?: boolean;
}) {
  return (
    <>
      <Field id={props.id} label="New password" help="At least 8 characters.">
        {(aria) => (
          <input
            id={props.id}
            name={props.name}
            type="password"
            autoComplete="new-password"
            minLength={8}
            required
            autoFocus={props.autoFocus}
            {...aria}
          />
        )}
      </Field>
      <Field id={props.confirmId} label="New password again">
        <input
          id={props.confirmId}
          name={props.confirmName}
          type="password"
          autoComplete="new-password"
          required
        />
      </Field>
    </>
  );
}
