// Native charts as DrawingML parts, from a small declaration of what to plot: the chart part
// (xl/charts/chartN.xml), the drawing that places charts on a sheet (xl/drawings/drawingN.xml) and
// the drawing's relationships to its charts. exceljs writes no charts; the exceljs adapter, the one
// module that writes zip parts, writes these beside the sheets. Every series points at cell ranges
// (no cached values): Excel and LibreOffice read the cells when they draw, so a chart follows its
// cells when they change, and with plotVisOnly it leaves out rows a filter hides.
//
// Element order follows the schema (ECMA-376 part 1, dml-chart.xsd): readers refuse a part whose
// elements are out of order.

import { spreadsheetSafeText } from '../../domain/spreadsheet-safe-text.js';
import { columnLetters } from './xlsx-cells.js';

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** Text in an element or attribute: through the XML gate (a sheet name is ours, but still), escaped. */
function xmlText(text: string): string {
  return spreadsheetSafeText(text).replace(/[&<>"']/g, (c) => ENTITIES[c] ?? '');
}

/** A rectangle of cells, 1-based, on a named sheet. */
export interface CellRange {
  readonly sheet: string;
  readonly firstRow: number;
  readonly lastRow: number;
  readonly firstColumn: number;
  readonly lastColumn: number;
}

/** A single cell, as a range of one. */
export function cellAt(sheet: string, row: number, column: number): CellRange {
  return { sheet, firstRow: row, lastRow: row, firstColumn: column, lastColumn: column };
}

/** A column of cells from `firstRow` to `lastRow`. */
export function columnRange(sheet: string, column: number, firstRow: number, lastRow: number): CellRange {
  return { sheet, firstRow, lastRow, firstColumn: column, lastColumn: column };
}

/** `'By day'!$A$2:$A$9`: the formula a chart series refers to cells with. */
export function rangeFormula(range: CellRange): string {
  const cell = (row: number, column: number): string => `$${columnLetters(column)}$${row}`;
  const from = cell(range.firstRow, range.firstColumn);
  const to = cell(range.lastRow, range.lastColumn);
  return `'${range.sheet.replace(/'/g, "''")}'!${from === to ? from : `${from}:${to}`}`;
}

export interface ChartSeries {
  /** The cell holding the series' name (a table's header), shown in the legend. */
  readonly name: CellRange;
  readonly values: CellRange;
}

interface ChartCommon {
  readonly title: string;
  /** The title's language (BCP 47), which spell checkers and screen readers go by; default en-US. */
  readonly titleLanguage?: string;
  /** The category labels (division names, dates), one per value. */
  readonly categories: CellRange;
  readonly series: readonly ChartSeries[];
  /** Number format of the value axis, e.g. `0%`. */
  readonly valueFormat: string;
  /** The value axis runs from min to max (0 to 1 for rates); automatic when absent. */
  readonly valueRange?: { readonly min: number; readonly max: number };
  /**
   * The categories are dates (serial day numbers): the axis shows them as their cells do, in the
   * reader's own date order (built-in format 14, xlsx-cells.ts). Otherwise they are text.
   */
  readonly dateCategories?: boolean;
  /** The axes' titles: what the categories are (Division, Business date) and what the values are. */
  readonly axisTitles: { readonly category: string; readonly value: string };
}

/**
 * Vertical bars, one per category, and an optional threshold: a line series over the same
 * categories whose cells all hold the threshold (a line across the bars, named in the legend).
 */
export interface BarChart extends ChartCommon {
  readonly kind: 'bar';
  readonly threshold?: ChartSeries;
}

/** One line per series over the categories; an empty cell is a gap in its line. */
export interface LineChart extends ChartCommon {
  readonly kind: 'line';
}

export type ChartDeclaration = BarChart | LineChart;

/** Where a chart sits: from the top-left corner of one cell to that of another (0-based). */
export interface ChartPlacement {
  readonly chart: ChartDeclaration;
  readonly from: { readonly row: number; readonly column: number };
  readonly to: { readonly row: number; readonly column: number };
}

const NS_C = 'http://schemas.openxmlformats.org/drawingml/2006/chart';
const NS_A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
const NS_R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const NS_XDR = 'http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing';
const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

export const CHART_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.drawingml.chart+xml';
export const DRAWING_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.drawing+xml';
export const CHART_RELATIONSHIP = `${NS_R}/chart`;
export const DRAWING_RELATIONSHIP = `${NS_R}/drawing`;

/** Series colours, a colour-blind-safe palette (Okabe–Ito); the threshold is drawn red. */
const SERIES_COLOURS = ['0072B2', 'E69F00', '009E73', 'CC79A7', '56B4E9', 'D55E00', '000000', 'F0E442'];
const THRESHOLD_COLOUR = 'C00000';

const BAR_AXES = { category: 10, value: 20 };

const attribute = xmlText;

/** A title of the chart (12 pt) or of an axis (10 pt; `rotated`: read upwards, beside a vertical axis). */
function richTitle(text: string, language: string, size: number, rotated = false): string {
  const body = rotated ? '<a:bodyPr rot="-5400000" vert="horz"/>' : '<a:bodyPr/>';
  return (
    `<c:title><c:tx><c:rich>${body}<a:lstStyle/><a:p><a:pPr><a:defRPr sz="${size}" b="1"/></a:pPr>` +
    `<a:r><a:rPr lang="${attribute(language)}" sz="${size}" b="1"/><a:t>${xmlText(text)}</a:t></a:r></a:p></c:rich></c:tx>` +
    '<c:overlay val="0"/></c:title>'
  );
}

function titleXml(title: string, language = 'en-US'): string {
  return `${richTitle(title, language, 1200)}<c:autoTitleDeleted val="0"/>`;
}

function lineShape(colour: string, widthEmu: number, dashed = false): string {
  return (
    `<c:spPr><a:ln w="${widthEmu}" cap="rnd"><a:solidFill><a:srgbClr val="${colour}"/></a:solidFill>` +
    `${dashed ? '<a:prstDash val="dash"/>' : ''}<a:round/></a:ln></c:spPr>`
  );
}

function seriesHead(series: ChartSeries, index: number): string {
  return (
    `<c:idx val="${index}"/><c:order val="${index}"/>` +
    `<c:tx><c:strRef><c:f>${xmlText(rangeFormula(series.name))}</c:f></c:strRef></c:tx>`
  );
}

function categoriesAndValues(chart: ChartCommon, series: ChartSeries): string {
  // Text categories are a strRef, dates (numbers with a format) a numRef.
  const categories =
    chart.dateCategories !== true
      ? `<c:strRef><c:f>${xmlText(rangeFormula(chart.categories))}</c:f></c:strRef>`
      : `<c:numRef><c:f>${xmlText(rangeFormula(chart.categories))}</c:f></c:numRef>`;
  return (
    `<c:cat>${categories}</c:cat>` +
    `<c:val><c:numRef><c:f>${xmlText(rangeFormula(series.values))}</c:f></c:numRef></c:val>`
  );
}

function barSeriesXml(chart: BarChart, series: ChartSeries, index: number): string {
  const colour = SERIES_COLOURS[index % SERIES_COLOURS.length] ?? '0072B2';
  return (
    `<c:ser>${seriesHead(series, index)}` +
    `<c:spPr><a:solidFill><a:srgbClr val="${colour}"/></a:solidFill></c:spPr>` +
    `<c:invertIfNegative val="0"/>${categoriesAndValues(chart, series)}</c:ser>`
  );
}

function lineSeriesXml(
  chart: ChartCommon,
  series: ChartSeries,
  index: number,
  look: {
    readonly colour: string;
    readonly widthEmu: number;
    readonly dashed?: boolean;
    /** A dot on each point, a wide dash (a line of one point), or none. */
    readonly marker: 'circle' | 'dash' | 'none';
  },
): string {
  const fill = `<c:spPr><a:solidFill><a:srgbClr val="${look.colour}"/></a:solidFill><a:ln><a:noFill/></a:ln></c:spPr>`;
  const marker =
    look.marker === 'circle'
      ? `<c:marker><c:symbol val="circle"/><c:size val="5"/>${fill}</c:marker>`
      : look.marker === 'dash'
        ? `<c:marker><c:symbol val="dash"/><c:size val="30"/>${fill}</c:marker>`
        : '<c:marker><c:symbol val="none"/></c:marker>';
  return (
    `<c:ser>${seriesHead(series, index)}${lineShape(look.colour, look.widthEmu, look.dashed)}${marker}` +
    `${categoriesAndValues(chart, series)}<c:smooth val="0"/></c:ser>`
  );
}

function axesXml(chart: ChartCommon): string {
  const { category, value } = BAR_AXES;
  // No number format of the axis's own: its labels take the cells' (built-in, locale) date
  // format, so dates read in the reader's date order. A source-linked numFmt is not the same: with
  // no cached values to carry a format code, LibreOffice shows its formatCode (General: 46342).
  const language = chart.titleLanguage ?? 'en-US';
  const range =
    chart.valueRange === undefined
      ? ''
      : `<c:max val="${chart.valueRange.max}"/><c:min val="${chart.valueRange.min}"/>`;
  return (
    `<c:catAx><c:axId val="${category}"/><c:scaling><c:orientation val="minMax"/></c:scaling>` +
    '<c:delete val="0"/><c:axPos val="b"/>' +
    richTitle(chart.axisTitles.category, language, 1000) +
    '<c:majorTickMark val="out"/><c:minorTickMark val="none"/><c:tickLblPos val="low"/>' +
    `<c:crossAx val="${value}"/><c:crosses val="autoZero"/><c:auto val="1"/><c:lblAlgn val="ctr"/>` +
    '<c:lblOffset val="100"/><c:noMultiLvlLbl val="0"/></c:catAx>' +
    `<c:valAx><c:axId val="${value}"/><c:scaling><c:orientation val="minMax"/>${range}</c:scaling>` +
    '<c:delete val="0"/><c:axPos val="l"/>' +
    `<c:majorGridlines>${lineShape('D9D9D9', 6350)}</c:majorGridlines>` +
    richTitle(chart.axisTitles.value, language, 1000, true) +
    `<c:numFmt formatCode="${attribute(chart.valueFormat)}" sourceLinked="0"/>` +
    '<c:majorTickMark val="out"/><c:minorTickMark val="none"/><c:tickLblPos val="nextTo"/>' +
    `<c:crossAx val="${category}"/><c:crosses val="autoZero"/><c:crossBetween val="between"/></c:valAx>`
  );
}

function plotXml(chart: ChartDeclaration): string {
  const axisIds = `<c:axId val="${BAR_AXES.category}"/><c:axId val="${BAR_AXES.value}"/>`;
  if (chart.kind === 'bar') {
    const bars =
      '<c:barChart><c:barDir val="col"/><c:grouping val="clustered"/><c:varyColors val="0"/>' +
      chart.series.map((series, i) => barSeriesXml(chart, series, i)).join('') +
      `<c:gapWidth val="60"/>${axisIds}</c:barChart>`;
    const threshold =
      chart.threshold === undefined
        ? ''
        : '<c:lineChart><c:grouping val="standard"/><c:varyColors val="0"/>' +
          lineSeriesXml(chart, chart.threshold, chart.series.length, {
            colour: THRESHOLD_COLOUR,
            widthEmu: 28575,
            dashed: true,
            // One bar: a line needs two points, so the threshold is drawn as a dash across it.
            marker: chart.categories.firstRow === chart.categories.lastRow ? 'dash' : 'none',
          }) +
          `<c:marker val="1"/>${axisIds}</c:lineChart>`;
    return bars + threshold;
  }
  return (
    '<c:lineChart><c:grouping val="standard"/><c:varyColors val="0"/>' +
    chart.series
      .map((series, i) =>
        lineSeriesXml(chart, series, i, {
          colour: SERIES_COLOURS[i % SERIES_COLOURS.length] ?? '000000',
          // The first series (all divisions) thicker: it is the one to read first.
          widthEmu: i === 0 ? 38100 : 19050,
          marker: 'circle',
        }),
      )
      .join('') +
    `<c:marker val="1"/>${axisIds}</c:lineChart>`
  );
}

/** The chart part (xl/charts/chartN.xml) of a declaration. */
export function chartXml(chart: ChartDeclaration): string {
  return (
    XML_DECLARATION +
    `<c:chartSpace xmlns:c="${NS_C}" xmlns:a="${NS_A}" xmlns:r="${NS_R}">` +
    '<c:roundedCorners val="0"/>' +
    `<c:chart>${titleXml(chart.title, chart.titleLanguage)}<c:plotArea><c:layout/>${plotXml(chart)}${axesXml(chart)}</c:plotArea>` +
    '<c:legend><c:legendPos val="b"/><c:overlay val="0"/></c:legend>' +
    '<c:plotVisOnly val="1"/><c:dispBlanksAs val="gap"/></c:chart>' +
    '<c:spPr><a:solidFill><a:srgbClr val="FFFFFF"/></a:solidFill><a:ln><a:solidFill><a:srgbClr val="BFBFBF"/></a:solidFill></a:ln></c:spPr>' +
    '</c:chartSpace>'
  );
}

/**
 * The drawing part (xl/drawings/drawingN.xml) placing charts on a sheet; chart i is the drawing's
 * relationship `rId{i+1}` (see drawingRelationshipsXml).
 */
export function drawingXml(placements: readonly ChartPlacement[]): string {
  const anchors = placements.map((placement, i) => {
    const corner = (tag: string, at: ChartPlacement['from']): string =>
      `<xdr:${tag}><xdr:col>${at.column}</xdr:col><xdr:colOff>0</xdr:colOff>` +
      `<xdr:row>${at.row}</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:${tag}>`;
    return (
      '<xdr:twoCellAnchor editAs="oneCell">' +
      corner('from', placement.from) +
      corner('to', placement.to) +
      `<xdr:graphicFrame macro=""><xdr:nvGraphicFramePr><xdr:cNvPr id="${i + 2}" name="${attribute(placement.chart.title)}"/>` +
      '<xdr:cNvGraphicFramePr/></xdr:nvGraphicFramePr>' +
      '<xdr:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/></xdr:xfrm>' +
      `<a:graphic><a:graphicData uri="${NS_C}"><c:chart xmlns:c="${NS_C}" r:id="rId${i + 1}"/></a:graphicData></a:graphic>` +
      '</xdr:graphicFrame><xdr:clientData/></xdr:twoCellAnchor>'
    );
  });
  return (
    XML_DECLARATION +
    `<xdr:wsDr xmlns:xdr="${NS_XDR}" xmlns:a="${NS_A}" xmlns:r="${NS_R}">${anchors.join('')}</xdr:wsDr>`
  );
}

/** The drawing's relationships: `rId{i+1}` to `../charts/chart{chartNumbers[i]}.xml`. */
export function drawingRelationshipsXml(chartNumbers: readonly number[]): string {
  const relationships = chartNumbers.map(
    (n, i) =>
      `<Relationship Id="rId${i + 1}" Type="${CHART_RELATIONSHIP}" Target="../charts/chart${n}.xml"/>`,
  );
  return (
    XML_DECLARATION +
    `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${relationships.join('')}</Relationships>`
  );
}
