import { CopyButton } from '../../shared/CopyButton';

/** One ready-to-paste setup snippet with its title and a Copy button. */
export function Snippet({ title, text, testId }: { title: string; text: string; testId: string }) {
  return (
    <figure className="snippet">
      <figcaption>
        <span>{title}</span>
        <CopyButton text={text} testId={`${testId}-copy`} />
      </figcaption>
      <pre className="code" data-testid={testId}>
        {text}
      </pre>
    </figure>
  );
}
