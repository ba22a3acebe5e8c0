import { isEnumType, isInputObjectType, isInterfaceType, isObjectType, isScalarType, isSpecifiedScalarType } from "graphql";
import { describe, expect, it } from "vitest";
import { schema } from "../../src/schema/index.js";

describe("schema descriptions", () => {
  it("every type, field, argument and enum value of ours has a description", () => {
    const missing: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith("__") || (isScalarType(type) && isSpecifiedScalarType(type))) continue;
      if (!type.description) missing.push(type.name);
      if (isObjectType(type) || isInterfaceType(type)) {
        for (const field of Object.values(type.getFields())) {
          if (!field.description) missing.push(`${type.name}.${field.name}`);
          for (const arg of field.args) if (!arg.description) missing.push(`${type.name}.${field.name}(${arg.name})`);
        }
      }
      if (isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) if (!field.description) missing.push(`${type.name}.${field.name}`);
      }
      if (isEnumType(type) && type.getValues().length > 0 && type.getValues().every((v) => !v.description) && !type.description) {
        missing.push(`${type.name} values`);
      }
    }
    expect(missing).toEqual([]);
  });
});
