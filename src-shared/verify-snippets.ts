/**
 * Receivers that verify X-Signature, one per language, each a whole program on that language's own
 * HTTP server: it reads the raw body bytes, computes the HMAC-SHA1 with the shared secret, compares
 * in constant time, and answers 200 or 401. The secret is read from WEBHOOK_SECRET unless the user
 * chose to have it written in. Shown in the delivery detail and run as they are by the tests.
 */

export type SnippetLanguage = 'node' | 'python' | 'go' | 'ruby' | 'php';

export interface VerifySnippet {
  language: SnippetLanguage;
  title: string;
  /** The file the program is saved as, and the command that runs it. */
  file: string;
  run: string;
  code: string;
}

export const SNIPPET_LANGUAGES: readonly SnippetLanguage[] = ['node', 'python', 'go', 'ruby', 'php'];
export const DEFAULT_SNIPPET_PORT = 9204;

/** A string literal in single quotes for Python, Ruby and PHP (only \ and ' need escaping there). */
const single = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
/** JSON's double-quoted string is also a valid JavaScript and Go literal. */
const double = (s: string): string => JSON.stringify(s);

function node(secret: string | null): string {
  return `// Verifies Hookbench's X-Signature over the raw body bytes.
const http = require('node:http');
const crypto = require('node:crypto');

const SECRET = ${secret === null ? 'process.env.WEBHOOK_SECRET' : double(secret)};

http
  .createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      // The exact bytes received: never JSON.stringify(JSON.parse(...)) of them.
      const body = Buffer.concat(chunks);
      const expected = crypto.createHmac('sha1', SECRET).update(body).digest();
      const given = Buffer.from(String(req.headers['x-signature'] ?? '').trim(), 'hex');
      const ok = given.length === expected.length && crypto.timingSafeEqual(given, expected);
      res.writeHead(ok ? 200 : 401).end(ok ? 'ok' : 'bad signature');
      if (ok) {
        const event = JSON.parse(body.toString('utf8'));
        console.log('verified', event.type, event.messageId);
      }
    });
  })
  .listen(Number(process.env.PORT ?? ${DEFAULT_SNIPPET_PORT}), '127.0.0.1', function () {
    console.log('listening on ' + this.address().port);
  });
`;
}

function python(secret: string | null): string {
  return `# Verifies Hookbench's X-Signature over the raw body bytes.
import hashlib
import hmac
import json
import os
from http.server import BaseHTTPRequestHandler, HTTPServer

SECRET = ${secret === null ? "os.environ['WEBHOOK_SECRET']" : single(secret)}.encode('utf-8')


class Hook(BaseHTTPRequestHandler):
    def do_POST(self):
        # The exact bytes received: never json.dumps(json.loads(...)) of them.
        body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
        expected = hmac.new(SECRET, body, hashlib.sha1).hexdigest().encode()
        given = self.headers.get('X-Signature', '').strip().lower().encode()
        ok = hmac.compare_digest(expected, given)
        self.send_response(200 if ok else 401)
        self.end_headers()
        self.wfile.write(b'ok' if ok else b'bad signature')
        if ok:
            event = json.loads(body)
            print('verified', event.get('type'), event.get('messageId'), flush=True)

    def log_message(self, *args):
        pass


server = HTTPServer(('127.0.0.1', int(os.environ.get('PORT', '${DEFAULT_SNIPPET_PORT}'))), Hook)
print(f'listening on {server.server_port}', flush=True)
server.serve_forever()
`;
}

function go(secret: string | null): string {
  return `// Verifies Hookbench's X-Signature over the raw body bytes (standard library only).
package main

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
)

func main() {
	secret := []byte(${secret === null ? 'os.Getenv("WEBHOOK_SECRET")' : double(secret)})
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		// The exact bytes received: never json.Marshal of what was unmarshalled.
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "unreadable body", http.StatusBadRequest)
			return
		}
		mac := hmac.New(sha1.New, secret)
		mac.Write(body)
		given, err := hex.DecodeString(strings.TrimSpace(r.Header.Get("X-Signature")))
		if err != nil || !hmac.Equal(given, mac.Sum(nil)) {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		var event map[string]any
		_ = json.Unmarshal(body, &event)
		fmt.Fprint(w, "ok")
		fmt.Println("verified", event["type"], event["messageId"])
	})
	port := os.Getenv("PORT")
	if port == "" {
		port = "${DEFAULT_SNIPPET_PORT}"
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		panic(err)
	}
	fmt.Printf("listening on %d\\n", ln.Addr().(*net.TCPAddr).Port)
	panic(http.Serve(ln, nil))
}
`;
}

function ruby(secret: string | null): string {
  return `# Verifies Hookbench's X-Signature over the raw body bytes (WEBrick; \`gem install webrick\` where Ruby lacks it).
require 'json'
require 'openssl'
require 'webrick'

SECRET = ${secret === null ? "ENV.fetch('WEBHOOK_SECRET')" : single(secret)}

server = WEBrick::HTTPServer.new(BindAddress: '127.0.0.1', Port: Integer(ENV.fetch('PORT', '${DEFAULT_SNIPPET_PORT}')),
                                 Logger: WEBrick::Log.new(File::NULL), AccessLog: [])
server.mount_proc '/' do |req, res|
  # The exact bytes received: never JSON.generate(JSON.parse(...)) of them.
  body = req.body || ''
  expected = OpenSSL::HMAC.hexdigest('SHA1', SECRET, body)
  given = (req['X-Signature'] || '').strip.downcase
  if OpenSSL.secure_compare(expected, given)
    event = JSON.parse(body)
    puts "verified #{event['type']} #{event['messageId']}"
    res.status = 200
    res.body = 'ok'
  else
    res.status = 401
    res.body = 'bad signature'
  end
end
puts "listening on #{server.config[:Port]}"
$stdout.flush
trap('TERM') { server.shutdown }
server.start
`;
}

function php(secret: string | null): string {
  return `<?php
// Verifies Hookbench's X-Signature over the raw body bytes.
$secret = ${secret === null ? "getenv('WEBHOOK_SECRET')" : single(secret)};
// The exact bytes received: never json_encode(json_decode(...)) of them.
$body = file_get_contents('php://input');
$given = strtolower(trim($_SERVER['HTTP_X_SIGNATURE'] ?? ''));
$expected = hash_hmac('sha1', $body, $secret);
if (!hash_equals($expected, $given)) {
    http_response_code(401);
    echo 'bad signature';
    exit;
}
$event = json_decode($body, true);
error_log('verified ' . $event['type'] . ' ' . ($event['messageId'] ?? ''));
echo 'ok';
`;
}

const MAKERS: Record<SnippetLanguage, { title: string; file: string; run: string; make: (secret: string | null) => string }> = {
  node: { title: 'Node.js (node:http)', file: 'verify.js', run: 'WEBHOOK_SECRET=… node verify.js', make: node },
  python: { title: 'Python (http.server)', file: 'verify.py', run: 'WEBHOOK_SECRET=… python3 verify.py', make: python },
  go: { title: 'Go (net/http)', file: 'verify.go', run: 'WEBHOOK_SECRET=… go run verify.go', make: go },
  ruby: { title: 'Ruby (WEBrick)', file: 'verify.rb', run: 'WEBHOOK_SECRET=… ruby verify.rb', make: ruby },
  php: { title: 'PHP (built-in server)', file: 'verify.php', run: `WEBHOOK_SECRET=… php -S 127.0.0.1:${DEFAULT_SNIPPET_PORT} verify.php`, make: php },
};

/** One language's receiver; with `secret`, the secret is written into the code instead of read from WEBHOOK_SECRET. */
export function verifySnippet(language: SnippetLanguage, secret: string | null = null): VerifySnippet {
  const m = MAKERS[language];
  const run = secret === null ? m.run : m.run.replace('WEBHOOK_SECRET=… ', '');
  return { language, title: m.title, file: m.file, run, code: m.make(secret) };
}
