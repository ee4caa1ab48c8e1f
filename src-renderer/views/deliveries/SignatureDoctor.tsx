import { useState } from 'react';
import type { DeliveryDetail, DoctorReport } from '../../../src-shared/api';
import { useDeliveries } from '../../app/view-stores';

const VERDICT_WORDS: Record<DoctorReport['verdict'], string> = {
  ok: 'Matches what was sent',
  differs: 'Differs from what was sent',
  unknown: 'Not explained',
};

/**
 * The signature doctor: paste what the receiver computed (a signature) or the body it parsed and
 * wrote out again, and the engine says how it differs from the bytes signed and sent.
 */
export function SignatureDoctor({ detail }: { detail: DeliveryDetail }) {
  const diagnose = useDeliveries((s) => s.diagnoseSignature);
  const [pasted, setPasted] = useState('');
  const [answer, setAnswer] = useState<{ report: DoctorReport } | { error: string } | null>(null);
  const [asking, setAsking] = useState(false);
  if (detail.body === null) return null;
  const ask = (): void => {
    setAsking(true);
    void diagnose({ pasted })
      .then(setAnswer)
      .finally(() => setAsking(false));
  };
  return (
    <section className="ins-section ins-doctor" aria-label="Signature doctor" data-testid="doctor">
      <h3>Signature doctor</h3>
      <p className="muted hint">
        Your receiver refuses the signature? Paste the signature it computed, or the body it signed (what it parsed and wrote out again), and Hookbench
        says what differs from the bytes it sent.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (pasted.trim() !== '') ask();
        }}
      >
        <textarea
          className="mono ins-doctor-input"
          rows={4}
          value={pasted}
          onChange={(e) => setPasted(e.target.value)}
          placeholder="a signature (hex or base64) or a JSON body"
          spellCheck={false}
          aria-label="What your receiver computed or parsed"
          data-testid="doctor-input"
        />
        <div className="buttons">
          <button type="submit" disabled={asking || pasted.trim() === ''} data-testid="doctor-run">
            {asking ? 'Diagnosing…' : 'Diagnose'}
          </button>
        </div>
      </form>
      {answer && 'error' in answer && (
        <p className="notice bad" data-testid="doctor-error">
          {answer.error}
        </p>
      )}
      {answer && 'report' in answer && <DoctorAnswer report={answer.report} />}
    </section>
  );
}

function DoctorAnswer({ report }: { report: DoctorReport }) {
  return (
    <div className={`ins-doctor-report ins-doctor-${report.verdict}`} data-testid="doctor-report" data-verdict={report.verdict} data-read={report.read}>
      <p>
        <strong>{VERDICT_WORDS[report.verdict]}</strong> <span className="muted">(read as a {report.read})</span>
      </p>
      <p data-testid="doctor-summary">{report.summary}</p>
      {report.findings.length > 0 && (
        <ul className="ins-doctor-findings">
          {report.findings.map((f) => (
            <li key={f.code} data-testid={`doctor-finding-${f.code}`}>
              <strong>{f.title}</strong>
              <div className="muted">{f.detail}</div>
              {f.examples.length > 0 && (
                <table className="headers ins-doctor-examples">
                  <thead>
                    <tr>
                      <th scope="col">where</th>
                      <th scope="col">sent</th>
                      <th scope="col">yours</th>
                    </tr>
                  </thead>
                  <tbody>
                    {f.examples.map((e, k) => (
                      <tr key={k}>
                        <td className="mono">{e.path}</td>
                        <td className="mono">{e.ours}</td>
                        <td className="mono">{e.theirs}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
