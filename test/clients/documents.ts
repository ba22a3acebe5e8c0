/**
 * A page's documents as a frontend team writes them, for every client of
 * this folder but Relay (whose app is test/clients/relay-app/): a row
 * fragment, a home page with a list inside a list, and a school's courses a
 * page at a time. Each client composes them as it does (Apollo Client and
 * urql in one document, GraphQL Codegen one `graphql()` call each).
 */

/** One row of a course list, with the course's school. */
export const COURSE_ROW = `
  fragment CourseRow on Course {
    id
    courseNameChinese
    semester
    university {
      id
      code
    }
  }
`;

/** Schools, each with its first courses (spreads CourseRow). */
export const HOME = `
  query Home($schools: Int!, $courses: Int!) {
    universities(first: $schools) {
      edges {
        node {
          id
          code
          courses(first: $courses) {
            totalCount
            edges {
              node {
                ...CourseRow
              }
            }
          }
        }
      }
    }
  }
`;

/** A school's courses a page at a time (spreads CourseRow). */
export const SCHOOL_COURSES = `
  query SchoolCourses($ref: String!, $first: Int!, $after: String) {
    university(ref: $ref) {
      id
      nameZh
      courses(first: $first, after: $after) {
        totalCount
        edges {
          cursor
          node {
            ...CourseRow
          }
        }
        pageInfo {
          endCursor
          hasNextPage
        }
      }
    }
  }
`;
