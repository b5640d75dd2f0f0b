// The JSON shape of a vocabulary row, wherever a response shows one (admin lists, teardowns, listings).
import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../http/schemas.js';

export const VocabularyView = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    manufacturer: Type.String(),
    category: Nullable(Type.String()),
    is_active: Type.Boolean(),
    created_at: Timestamp,
  },
  { title: 'VocabularyTerm', description: 'A vocabulary row; requests name it by `name`, never by id.' },
);
