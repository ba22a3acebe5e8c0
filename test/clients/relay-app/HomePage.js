// A Relay app's pages, as a frontend team writes them: fragments beside the
// components that read them, composed into one query per page. Only
// relay-compiler reads this folder (test/clients/relay.test.ts); nothing
// imports it.
import { graphql } from "relay-runtime";

/** The home page: schools, each as a card showing its first courses. */
export const HomePageQuery = graphql`
  query HomePageQuery($schools: Int!, $courses: Int!) {
    universities(first: $schools) {
      edges {
        node {
          ...UniversityCard_university @arguments(courses: $courses)
        }
      }
    }
  }
`;

export const UniversityCard = graphql`
  fragment UniversityCard_university on University @argumentDefinitions(courses: { type: "Int!" }) {
    id
    code
    nameZh
    shortName
    region
    courses(first: $courses) {
      totalCount
      edges {
        node {
          ...CourseRow_course
        }
      }
    }
  }
`;

/** One row of a course list: the course, and its school (a third object level). */
export const CourseRow = graphql`
  fragment CourseRow_course on Course {
    id
    databaseId
    courseNameChinese
    courseNameEnglish
    semester
    instructor
    university {
      id
      code
      shortName
    }
  }
`;
