// The prose of the partner document: the introduction (info.description, Markdown rendered by the
// docs page) and the tags that group operations, each with its own guide. openapi.ts places them.

export const API_DESCRIPTION = 'Partner API of the aviation marketplace: teardowns and sales / lease / exchange listings.';

export const TAGS: { name: string; description: string }[] = [];
