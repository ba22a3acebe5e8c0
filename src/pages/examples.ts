/**
 * The example queries GraphiQL opens with: one tab for each resource. A test
 * runs every one of them against the demo data, so none goes stale.
 */
export interface Example {
  /** The operation, named after what it shows. */
  query: string;
  /** Its variables, if it has any. */
  variables?: Record<string, unknown>;
}

export const EXAMPLES: readonly Example[] = [
  {
    query: `# Universities, Relay-style: ask for more with first/after.
query Universities {
  universities(first: 10) {
    totalCount
    nodes { databaseId code nameZh nameEn shortName region country timezone }
    pageInfo { hasNextPage endCursor }
  }
}`,
  },
  {
    query: `# Public courses: a substring of the title (q), a school or a semester narrows them.
query Courses($q: String) {
  courses(first: 5, q: $q) {
    totalCount
    nodes {
      databaseId courseNameChinese courseNameEnglish instructor semester
      university { code nameZh }
    }
    pageInfo { hasNextPage endCursor }
  }
}`,
    variables: { q: "程式" },
  },
  {
    query: `# One public course in full; null when there is none.
query Course($id: Int!) {
  course(id: $id) {
    databaseId courseNameChinese courseNameEnglish instructor department semester
    startDate endDate teachingGoal teachingContent
    university { code nameZh }
  }
}`,
    variables: { id: 1 },
  },
  {
    query: `# Public course and instructor counts, by semester, year or school.
query CourseStats {
  courseStats(groupBy: semester) {
    totalCount
    nodes { key courseCount instructorCount }
  }
}`,
  },
  {
    query: `# The team's papers and conferences.
query Research {
  papers(first: 5) {
    totalCount
    nodes { slug title year authors conference doi }
  }
  conferences(first: 5) {
    nodes { slug name nameShort year location paperCount }
  }
}`,
  },
  {
    query: `# One school's environment now, and its daily history.
query SchoolEnvironment($ref: String!) {
  schoolEnvironment(ref: $ref) {
    school { code nameZh timezone }
    realtime { aqi aqiStatus pm25Ugm3 observedAtUtc }
    daily { dateLocal tempCAvg rhAvg precipTotalMm aqiAvg }
    dataSources { id stationIds }
  }
  schoolEnvironmentHistory(ref: $ref, days: 7) {
    daily { dateLocal tempCMin tempCMax pm25Avg aqiAvg }
  }
}`,
    variables: { ref: "NTU" },
  },
  {
    query: `# The latest air quality of many schools at once.
query EnvironmentSnapshot {
  environmentSnapshot(limit: 10) {
    totalCount
    nodes {
      school { code nameZh region }
      realtime { aqi aqiStatus pm25Ugm3 observedAtUtc }
    }
  }
}`,
  },
  {
    query: `# Public community teaching Packs that passed the safety check.
query Packs {
  hubPacks(first: 5, sort: installs) {
    totalCount
    nodes {
      databaseId name summary assetType educationLevel subject
      latestVersion installCount starCount
      versions { version publishedAt }
    }
  }
}`,
  },
];
