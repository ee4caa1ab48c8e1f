import selfsigned from 'selfsigned';

/**
 * A CA and a certificate for 127.0.0.1 it signed: a benchmark's https receiver serves `key` and
 * `cert`; its clients (the engine's `ca`, a baseline client) trust `ca`, as they would a local CA.
 */
export async function localCertificate(): Promise<{ key: string; cert: string; ca: string }> {
  const ca = await selfsigned.generate([{ name: 'commonName', value: 'Hookbench bench CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const leaf = await selfsigned.generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  return { key: leaf.private, cert: leaf.cert, ca: ca.cert };
}
