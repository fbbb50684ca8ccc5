/**
 * Run by crash.test.ts as a separate process, so it can be killed with SIGKILL mid-delivery: one pixd
 * node in the sandbox environment on the data directory / database the parent names, trusting the test
 * receivers' CA, with the webhook timeouts and lease the parent gives (PIXD_TEST_WEBHOOK_SETTINGS, JSON).
 * Prints one JSON line when listening.
 */
import { loadConfig } from '../../src/config.ts';
import { startService } from '../../src/runtime.ts';
import { setWebhookSettings } from '../../src/platform/webhooks/settings.ts';

setWebhookSettings(JSON.parse(process.env.PIXD_TEST_WEBHOOK_SETTINGS ?? '{}'));
const config = loadConfig({ ...process.env, PIXD_ENV: 'sandbox', LOG_LEVEL: 'silent' });
const service = await startService(config, { logger: false });
process.stdout.write(
  JSON.stringify({ baseUrl: service.credentials.baseUrl, credentialsPath: service.credentialsPath }) + '\n',
);
process.on('SIGTERM', () => void service.close().then(() => process.exit(0)));
