/** The page at `/`: where a person who typed the server's address finds the reference, health and credentials. */
import type { AppContext } from '../platform/context.ts';
import { escapeHtml } from '../platform/html.ts';

export function landingPage(ctx: AppContext): string {
  const sandbox = ctx.config.environment === 'sandbox';
  // Only the sandbox names a path of the server's disk: an integrator's own machine.
  const credentials = sandbox
    ? `<li>Credentials of the demo account: <code>${escapeHtml(`${ctx.config.dataDir}/credentials.json`)}</code>
       (<code>pixd account create</code> makes more)</li>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>pixd</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem;color:#1b1f24}
code{background:#f2f4f7;padding:.1rem .3rem;border-radius:4px}a{color:#0b5cad}</style></head>
<body><h1>pixd <small>(${sandbox ? 'sandbox' : 'production'})</small></h1>
<p>Pix receiving and billing interface.</p>
<ul>
<li><a href="/docs">API reference</a> (try calls with a token) — <a href="/openapi.json">openapi.json</a> for tools</li>
<li><a href="/health">Health</a> — <a href="/metrics">metrics</a></li>
${credentials}
</ul></body></html>
`;
}
