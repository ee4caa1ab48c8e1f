import { useState } from 'react';
import type { FieldError } from '../../src-shared/settings';

/** "is required" reads better as "URL is required"; messages that are already sentences stay as they are. */
export function sentence(label: string | undefined, message: string): string {
  if (!label || !/^(is|must|has|cannot) /.test(message)) return message.charAt(0).toUpperCase() + message.slice(1);
  return `${label} ${message}`;
}

/** The refusals on these field paths, each marked with the path it names. */
export function FieldErrors({ errors, fields, label }: { errors: FieldError[]; fields: string[]; label?: string }) {
  const mine = errors.filter((e) => fields.includes(e.field));
  if (mine.length === 0) return null;
  return (
    <>
      {mine.map((e, k) => (
        <p key={`${e.field}-${k}`} className="field-error" role="alert" data-testid="field-error" data-field={e.field}>
          {sentence(label, e.message)}
        </p>
      ))}
    </>
  );
}

/** A destructive button that asks once more in place instead of a modal dialog. */
export function ConfirmButton({
  label,
  confirm,
  onConfirm,
  testId,
  warning,
}: {
  label: string;
  confirm: string;
  onConfirm: () => void;
  testId: string;
  /** What the action will break, shown while it waits for confirmation. */
  warning?: string;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="btn small danger-quiet" data-testid={testId} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span className="confirm">
      {warning && (
        <span className="confirm-warning" role="alert" data-testid={`${testId}-warning`}>
          {warning}
        </span>
      )}
      <button
        type="button"
        className="btn small danger"
        data-testid={`${testId}-confirm`}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirm}
      </button>
      <button type="button" className="btn small" onClick={() => setAsking(false)}>
        Keep
      </button>
    </span>
  );
}
