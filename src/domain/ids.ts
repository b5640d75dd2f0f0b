// Path identifiers. By-id routes accept any text and answer a malformed id with the resource's
// plain 404, as for an unknown one, so the database is never asked to cast garbage to uuid.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID.test(value);
