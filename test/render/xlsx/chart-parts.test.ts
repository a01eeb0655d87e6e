// The chart parts from a declaration: well-formed XML, each series pointing at the ranges it was
// declared with, the threshold as a dashed line series over the bars, and a drawing that places
// each chart and names it by relationship.

import { describe, expect, it } from 'vitest';
import {
  cellAt,
  chartXml,
  columnRange,
  drawingRelationshipsXml,
  drawingXml,
  rangeFormula,
  type BarChart,
  type LineChart,
} from '../../../src/render/xlsx/chart-parts.js';
import { xmlTextProblems } from '../../support/workbook-xml.js';

const BAR: BarChart = {
  kind: 'bar',
  title: 'Start match rate by division, lowest first',
  categories: columnRange('Overview', 1, 46, 53),
  series: [{ name: cellAt('Overview', 45, 2), values: columnRange('Overview', 2, 46, 53) }],
  threshold: { name: cellAt('Overview', 45, 3), values: columnRange('Overview', 3, 46, 53) },
  valueFormat: '0%',
  valueRange: { min: 0, max: 1 },
  axisTitles: { category: 'Division', value: 'Start match rate' },
};

const LINE: LineChart = {
  kind: 'line',
  title: 'Daily start match rate <all & five lowest>',
  categories: columnRange('By day', 1, 2, 8),
  dateCategories: true,
  axisTitles: { category: 'Business date', value: 'Start <match> & rate' },
  series: [
    { name: cellAt('By day', 1, 2), values: columnRange('By day', 2, 2, 8) },
    { name: cellAt('By day', 1, 3), values: columnRange('By day', 3, 2, 8) },
  ],
  valueFormat: '0%',
};

/** The `<c:f>` formulas of a chart, in document order. */
function formulas(xml: string): string[] {
  return [...xml.matchAll(/<c:f>([^<]*)<\/c:f>/g)].map((m) => (m[1] ?? '').replace(/&apos;/g, "'"));
}

describe('rangeFormula', () => {
  it('writes an absolute range on a quoted sheet, one cell without a colon', () => {
    expect(rangeFormula(columnRange('Overview', 2, 46, 53))).toBe("'Overview'!$B$46:$B$53");
    expect(rangeFormula(cellAt('By day', 1, 28))).toBe("'By day'!$AB$1");
    expect(rangeFormula(cellAt("Joe's", 3, 1))).toBe("'Joe''s'!$A$3");
  });
});

describe('chartXml', () => {
  it('writes a bar chart whose series and threshold point at the declared ranges', () => {
    const xml = chartXml(BAR);
    expect(xmlTextProblems(xml)).toEqual([]);
    expect(formulas(xml)).toEqual([
      "'Overview'!$B$45",
      "'Overview'!$A$46:$A$53",
      "'Overview'!$B$46:$B$53",
      "'Overview'!$C$45",
      "'Overview'!$A$46:$A$53",
      "'Overview'!$C$46:$C$53",
    ]);
    // Bars, then the threshold as a dashed line on the same axes, 0 to 100%.
    expect(xml).toMatch(
      /<c:barChart><c:barDir val="col"\/>.*<\/c:barChart><c:lineChart>.*<a:prstDash val="dash"\/>.*<\/c:lineChart>/,
    );
    expect(xml).toContain('<c:max val="1"/><c:min val="0"/>');
    expect(xml).toContain('<c:numFmt formatCode="0%" sourceLinked="0"/>');
    expect(xml).toContain('<a:t>Start match rate by division, lowest first</a:t>');
    expect(xml).toContain('<c:plotVisOnly val="1"/>');
  });

  it('titles both axes, the value axis read upwards, each title escaped', () => {
    const bar = chartXml(BAR);
    const categoryAxis = /<c:catAx>.*<\/c:catAx>/.exec(bar)?.[0] ?? '';
    const valueAxis = /<c:valAx>.*<\/c:valAx>/.exec(bar)?.[0] ?? '';
    expect(categoryAxis).toMatch(/<c:title>.*<a:t>Division<\/a:t>.*<\/c:title>/);
    expect(valueAxis).toMatch(
      /<c:title><c:tx><c:rich><a:bodyPr rot="-5400000" vert="horz"\/>.*<a:t>Start match rate<\/a:t>/,
    );
    // CT_CatAx and CT_ValAx: the title after axPos and the gridlines, before numFmt.
    expect(valueAxis).toMatch(/<\/c:majorGridlines><c:title>.*<\/c:title><c:numFmt /);
    const line = chartXml(LINE);
    expect(xmlTextProblems(line)).toEqual([]);
    expect(line).toContain('<a:t>Start &lt;match&gt; &amp; rate</a:t>');
    expect(line).toMatch(/<c:catAx>.*<a:t>Business date<\/a:t>.*<\/c:catAx>/);
  });

  it('draws the threshold of a single bar as a dash across it (a line needs two points)', () => {
    const lineOf = (xml: string): string => /<c:lineChart>.*<\/c:lineChart>/.exec(xml)?.[0] ?? '';
    expect(lineOf(chartXml(BAR))).toContain('<c:symbol val="none"/>');
    const one: BarChart = {
      ...BAR,
      categories: columnRange('Overview', 1, 46, 46),
      series: [{ name: cellAt('Overview', 45, 2), values: columnRange('Overview', 2, 46, 46) }],
      threshold: { name: cellAt('Overview', 45, 3), values: columnRange('Overview', 3, 46, 46) },
    };
    const xml = chartXml(one);
    expect(xmlTextProblems(xml)).toEqual([]);
    expect(lineOf(xml)).toContain('<c:symbol val="dash"/>');
  });

  it('writes a line chart with a line per series over date categories, the title escaped', () => {
    const xml = chartXml(LINE);
    expect(xmlTextProblems(xml)).toEqual([]);
    expect(formulas(xml)).toEqual([
      "'By day'!$B$1",
      "'By day'!$A$2:$A$8",
      "'By day'!$B$2:$B$8",
      "'By day'!$C$1",
      "'By day'!$A$2:$A$8",
      "'By day'!$C$2:$C$8",
    ]);
    expect(xml).not.toContain('<c:barChart>');
    expect(xml.match(/<c:ser>/g)).toHaveLength(2);
    // Dates are numbers: a numRef whose labels take the cells' (built-in, locale) date format, as
    // the category axis has no number format of its own; no fixed value range.
    expect(xml).toContain('<c:cat><c:numRef><c:f>&apos;By day&apos;!$A$2:$A$8</c:f></c:numRef></c:cat>');
    expect(/<c:catAx>.*<\/c:catAx>/.exec(xml)?.[0]).not.toContain('<c:numFmt');
    expect(xml).not.toContain('<c:max ');
    expect(xml).toContain('<a:t>Daily start match rate &lt;all &amp; five lowest&gt;</a:t>');
  });
});

describe('drawingXml', () => {
  it('places each chart between two cell corners and refers to it by relationship', () => {
    const xml = drawingXml([
      { chart: BAR, from: { row: 0, column: 3 }, to: { row: 20, column: 13 } },
      { chart: LINE, from: { row: 21, column: 3 }, to: { row: 41, column: 13 } },
    ]);
    expect(xmlTextProblems(xml)).toEqual([]);
    expect(
      [...xml.matchAll(/<xdr:from><xdr:col>(\d+)<\/xdr:col>.*?<xdr:row>(\d+)<\/xdr:row>/g)].map((m) => [
        m[1],
        m[2],
      ]),
    ).toEqual([
      ['3', '0'],
      ['3', '21'],
    ]);
    expect([...xml.matchAll(/r:id="(rId\d+)"/g)].map((m) => m[1])).toEqual(['rId1', 'rId2']);
    const rels = drawingRelationshipsXml([3, 4]);
    expect(xmlTextProblems(rels)).toEqual([]);
    expect(rels).toContain(
      'Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/chart" Target="../charts/chart3.xml"',
    );
    expect(rels).toContain(
      'Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/chart" Target="../charts/chart4.xml"',
    );
  });
});
