/**
 * The public summary of a heat used in lists of other features (recording suggestions):
 * its division and competition type with their names. Same shape as the heats feature's
 * own responses.
 */
const referenceSummarySelect = { id: true, name: true, abbreviation: true } as const;

export const heatSummarySelect = {
  id: true,
  divisionId: true,
  division: { select: referenceSummarySelect },
  competitionTypeId: true,
  competitionType: { select: referenceSummarySelect },
  heatNumber: true,
  role: true,
} as const;
