import type { FormField } from './form';
import { useCompose } from '../../app/view-stores';

/** The error the form or the server gave for one field, right under it. */
export function FieldError({ field }: { field: FormField }) {
  const error = useCompose((s) => s.fieldErrors[field]);
  if (!error) return null;
  return (
    <p className="field-error" role="alert" data-testid={`compose-error-${field}`}>
      {error}
    </p>
  );
}
