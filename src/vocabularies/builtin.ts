// The built-in vocabulary loaded on first start: real type designations as the industry writes them.
import type { VocabularyKind } from '../domain/records.js';

export type { VocabularyKind };

export interface BuiltinTerm {
  name: string;
  manufacturer: string;
  category: string;
}

const aircraft = (manufacturer: string, category: string, names: string[]) =>
  names.map((name) => ({ name, manufacturer, category }));

export const builtinVocabulary: Record<VocabularyKind, BuiltinTerm[]> = {
  aircraft_type: [
    ...aircraft('Airbus', 'Narrowbody', ['A318-100', 'A319-100', 'A320-200', 'A320neo', 'A321-200', 'A321neo']),
    ...aircraft('Airbus', 'Widebody', ['A330-200', 'A330-300', 'A330-900', 'A340-300', 'A340-600', 'A350-900', 'A350-1000', 'A380-800']),
    ...aircraft('Airbus', 'Regional jet', ['A220-100', 'A220-300']),
    ...aircraft('Boeing', 'Narrowbody', ['737-300', '737-700', '737-800', '737-900ER', '737 MAX 8', '737 MAX 9', '757-200', '757-300']),
    ...aircraft('Boeing', 'Widebody', ['747-400', '747-8', '767-300ER', '777-200ER', '777-300ER', '777F', '787-8', '787-9', '787-10']),
    ...aircraft('Embraer', 'Regional jet', ['E170', 'E175', 'E190', 'E195', 'E190-E2', 'E195-E2']),
    ...aircraft('Bombardier', 'Regional jet', ['CRJ200', 'CRJ700', 'CRJ900', 'CRJ1000']),
    ...aircraft('De Havilland Canada', 'Turboprop', ['Dash 8-300', 'Dash 8-400']),
    ...aircraft('ATR', 'Turboprop', ['ATR 42-500', 'ATR 72-500', 'ATR 72-600']),
    ...aircraft('McDonnell Douglas', 'Widebody', ['MD-11F']),
  ],
  engine_model: [
    ...aircraft('CFM International', 'Turbofan', ['CFM56-3C1', 'CFM56-5A', 'CFM56-5B', 'CFM56-7B', 'LEAP-1A', 'LEAP-1B']),
    ...aircraft('International Aero Engines', 'Turbofan', ['V2500-A5']),
    ...aircraft('Pratt & Whitney', 'Turbofan', ['PW1100G-JM', 'PW1500G', 'PW1900G', 'PW4000-94', 'PW4000-100', 'PW2000']),
    ...aircraft('Pratt & Whitney Canada', 'Turboprop', ['PW127M', 'PW150A']),
    ...aircraft('GE Aerospace', 'Turbofan', ['CF6-80C2', 'CF6-80E1', 'CF34-8C', 'CF34-10E', 'GE90-115B', 'GEnx-1B', 'GEnx-2B']),
    ...aircraft('Rolls-Royce', 'Turbofan', ['RB211-535E4', 'Trent 700', 'Trent 800', 'Trent 1000', 'Trent XWB-84', 'Trent 7000']),
    ...aircraft('Engine Alliance', 'Turbofan', ['GP7200']),
  ],
  apu_model: [
    ...aircraft('Honeywell', 'APU', ['131-9A', '131-9B', 'GTCP36-150', 'GTCP85-129', 'GTCP331-200', 'GTCP331-350', 'GTCP331-500', 'HGT750']),
    ...aircraft('Pratt & Whitney Canada', 'APU', ['APS2300', 'APS3200', 'APS5000', 'PW980A']),
  ],
  landing_gear_type: [
    ...aircraft('Safran Landing Systems', 'Landing gear', ['A320 Main Landing Gear', 'A320 Nose Landing Gear', 'A330 Main Landing Gear']),
    ...aircraft('Collins Aerospace', 'Landing gear', ['737NG Main Landing Gear', '737NG Nose Landing Gear', '777 Main Landing Gear']),
  ],
};
