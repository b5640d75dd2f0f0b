// Closed sets shared by teardowns and listings: audience, vocabulary kinds, owner kinds.

/** Who may see a record's documents (partner-api.md "Audience"). */
export const AUDIENCE_VALUES = ['Airline', 'Lessor', 'OEM', 'MRO', 'Distributor', 'Others'] as const;
export type AudienceValue = (typeof AUDIENCE_VALUES)[number];

export const VOCABULARY_KINDS = ['aircraft_type', 'engine_model', 'apu_model', 'landing_gear_type'] as const;
export type VocabularyKind = (typeof VOCABULARY_KINDS)[number];

/** The kinds of record that own files, as named in object keys (`<owner_kind>/<record_id>/...`). */
export const OWNER_KINDS = ['teardowns', 'listings'] as const;
export type OwnerKind = (typeof OWNER_KINDS)[number];

/** Whether `value` is one of `values`: narrows a string read from text (a CSV, a flag) to the union. */
export const isOneOf = <const T extends readonly string[]>(values: T, value: string): value is T[number] =>
  (values as readonly string[]).includes(value);

/** The records partners own, as audit rows name them (`<entity>.<...>`). */
export type RecordEntity = 'teardown' | 'listing';
/** The generic file lists of a record, as audit actions name them (`<entity>.<noun>.uploaded`). */
export type FileNoun = 'document' | 'image';
