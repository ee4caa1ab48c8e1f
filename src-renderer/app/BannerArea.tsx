import { useEffect } from 'react';
import { useTransport } from './stores-context';
import { healthStoreFor, useHealth } from './health-store';
import { bannerWords } from './health-words';

/** Shown above every view while the engine cannot write its log: why, where, and what to do. */
export function StorageBanner() {
  const transport = useTransport();
  useEffect(() => healthStoreFor(transport).start(), [transport]);
  const health = useHealth((s) => s.health);
  const words = bannerWords(health);
  if (!words || !health?.problem) return null;
  return (
    <div className="banner storage-banner" role="alert" data-testid="storage-banner" data-code={health.problem.code}>
      <strong>{words.title}</strong> {words.advice}
      <div className="storage-banner-detail">
        Data folder: <code>{words.dataDir}</code>. {words.meanwhile}
      </div>
    </div>
  );
}
