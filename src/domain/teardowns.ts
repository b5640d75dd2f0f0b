// The closed sets of the teardown resource (partner-api.md "Teardown", "States and transitions").
// Row types, TypeBox schemas and services all derive from these arrays.

export const TEARDOWN_STATUSES = ['active_starting', 'active_in_process', 'active_completed', 'draft', 'archived', 'suspended'] as const;
export type TeardownStatus = (typeof TEARDOWN_STATUSES)[number];

/** The three values partners send on create, and the status each one starts in. */
export const CREATE_STATUSES = {
  Starting: 'active_starting',
  'In process': 'active_in_process',
  Completed: 'active_completed',
} as const satisfies Record<string, TeardownStatus>;
export type CreateStatus = keyof typeof CREATE_STATUSES;
export const CREATE_STATUS_VALUES = ['Starting', 'In process', 'Completed'] as const satisfies readonly CreateStatus[];

/** Asset types a partner may create and filter on. */
export const ASSET_TYPES = ['aircraft', 'engine'] as const;
export type AssetType = (typeof ASSET_TYPES)[number];
/** Every asset type a stored row may have: `apu` and `landing_gear` are legacy, readable only. */
export const LEGACY_ASSET_TYPES = [...ASSET_TYPES, 'apu', 'landing_gear'] as const;
export type StoredAssetType = (typeof LEGACY_ASSET_TYPES)[number];

export const INCIDENT_RELATED = ['Yes', 'No'] as const;
export type IncidentRelated = (typeof INCIDENT_RELATED)[number];

/** The four named documents of a teardown: each a column holding one URL. */
export const SLOT_COLUMNS = ['harvest_list', 'occm', 'aircraft_details_doc', 'non_incident_statement'] as const;
export type SlotColumn = (typeof SLOT_COLUMNS)[number];

/** Every action of POST /teardowns/transition (the last three need an admin). */
export const TRANSITION_ACTIONS = ['start_processing', 'complete', 'unpublish', 'archive', 'restore', 'submit', 'approve', 'reject', 'suspend'] as const;
export type TransitionAction = (typeof TRANSITION_ACTIONS)[number];
