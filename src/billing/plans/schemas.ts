/** Subscription plans (SDK: createPlan, listPlans, updatePlan, deletePlan). */
import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../../platform/limits.ts';

const strict = { additionalProperties: false } as const;
const Name = Type.String({ minLength: 1, maxLength: LIMITS.billingNameMaxChars });

export const PlanCreate = Type.Object(
  {
    name: Name,
    interval: Type.Integer({ minimum: 1, maximum: LIMITS.billingPlanIntervalMaxMonths, description: 'months' }),
    repeats: Type.Optional(
      Type.Union([Type.Integer({ minimum: 2, maximum: LIMITS.billingPlanRepeatsMax }), Type.Null()], {
        description: 'charges a subscription makes; absent or null: until cancelled',
      }),
    ),
  },
  strict,
);
export const PlanUpdate = Type.Object({ name: Name }, strict);
export const PlanListQuery = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: LIMITS.billingNameMaxChars })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.billingPlanListMax })),
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  strict,
);
export const PlanIdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });

export const PlanView = Type.Object({
  plan_id: Type.Integer(),
  name: Type.String(),
  interval: Type.Integer(),
  repeats: Type.Union([Type.Integer(), Type.Null()]),
  created_at: Type.String(),
});
export const PlanAnswer = Type.Object({ code: Type.Integer(), data: PlanView });
export const PlanList = Type.Object({ code: Type.Integer(), data: Type.Array(PlanView) });

export type PlanCreateInput = Static<typeof PlanCreate>;
export type PlanListInput = Static<typeof PlanListQuery>;
