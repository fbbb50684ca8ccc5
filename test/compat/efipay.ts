/**
 * The SDK's class, typed. Its package has no `"type": "module"`, so under `moduleResolution: NodeNext`
 * TypeScript reads `dist/types/index.d.ts` as CommonJS and types the default import as the module (class under
 * `.default`); at run time the ESM build (`dist/esm/index.mjs`) default-exports the class itself.
 * Either way this module hands out the class.
 */
import sdk from 'sdk-node-apis-efi';

type EfiPayClass = typeof sdk.default;
const loaded = sdk as unknown as EfiPayClass | { default: EfiPayClass };

export const EfiPay: EfiPayClass = typeof loaded === 'function' ? loaded : loaded.default;
export type EfiPay = InstanceType<EfiPayClass>;
export type EfiPayOptions = ConstructorParameters<EfiPayClass>[0];
