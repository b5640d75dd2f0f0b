// The closed sets of organizations and users (decisions.md sections 1 and 7).

export const ACCOUNT_STATUSES = ['active', 'inactive', 'churned'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

export const SUBSCRIPTION_STATUSES = [
  'active',
  'trialing',
  'past_due',
  'canceled',
  'expired',
  'rejected',
  'pending_payment',
  'pending_approval',
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const CAPABILITIES = ['seller', 'admin'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export const USER_STATUSES = ['active', 'deactivated'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];
