export const healthOpenApi = {
  '/health': {
    get: {
      tags: ['health'],
      summary: 'Liveness and database reachability',
      security: [],
      responses: {
        '200': { description: '`{ success: true, data: { status: "ok", database: "up", databaseKind } }`' },
        '503': { description: 'Database unreachable: error envelope with `data.database = "down"`' },
      },
    },
  },
};
