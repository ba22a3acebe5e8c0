// The school page: its courses a page at a time (a pagination fragment,
// refetched through `node(id:)`), and its weather.
import { graphql } from "relay-runtime";

export const SchoolPageQuery = graphql`
  query SchoolPageQuery($ref: String!) {
    university(ref: $ref) {
      id
      nameZh
      nameEn
      ...SchoolCourses_university
      ...SchoolWeather_university
    }
  }
`;

export const SchoolCourses = graphql`
  fragment SchoolCourses_university on University
  @refetchable(queryName: "SchoolCoursesPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 3 }, cursor: { type: "String" }, semester: { type: "String" }) {
    courses(first: $count, after: $cursor, semester: $semester) @connection(key: "SchoolCourses_courses", filters: ["semester"]) {
      totalCount
      edges {
        node {
          ...CourseRow_course
        }
      }
    }
  }
`;

export const SchoolWeather = graphql`
  fragment SchoolWeather_university on University {
    environment {
      dayBoundary
      realtime {
        aqi
        aqiStatus
        pm25Ugm3
        observedAtUtc
      }
      daily {
        dateLocal
        tempCMax
        tempCMin
        rhAvg
        precipTotalMm
      }
      dataSources {
        id
        name
      }
    }
  }
`;
