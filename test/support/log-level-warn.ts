/** Imported first by a test file whose service code must write WARN lines (the logger reads the level when it is made). */
process.env.POWERTOOLS_LOG_LEVEL = 'WARN';
