// Leading bytes of real formats, padded to any size: enough for the signature checks to decide.
const pad = (head: Buffer, size: number, fill = 0x20) =>
  size <= head.length ? head : Buffer.concat([head, Buffer.alloc(size - head.length, fill)]);

const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

export const bytes = {
  pdf: (size = 2000) => pad(Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n', 'latin1'), size),
  png: (size = 2000) => pad(PNG_1X1, size, 0),
  jpeg: (size = 2000) =>
    pad(
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]),
      size,
      0,
    ),
  gif: (size = 2000) =>
    pad(
      Buffer.from(
        'GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;',
        'latin1',
      ),
      size,
      0,
    ),
  webp: (size = 2000) =>
    pad(Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x24, 0, 0, 0]), Buffer.from('WEBPVP8 '), Buffer.alloc(24)]), size, 0),
  /** A ZIP container, as XLSX and DOCX files are. */
  zip: (size = 2000) => pad(Buffer.concat([Buffer.from('PK\x03\x04\x14\x00\x00\x00\x08\x00', 'latin1'), Buffer.alloc(20)]), size, 0),
  /** An OLE2 compound file, as XLS and DOC files are. */
  cfb: (size = 2000) => pad(Buffer.from('d0cf11e0a1b11ae1', 'hex'), size, 0),
  exe: (size = 2000) => pad(Buffer.from('MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff', 'latin1'), size, 0),
  bmp: (size = 2000) => pad(Buffer.from('BM'), size, 0),
  tiff: (size = 2000) => pad(Buffer.from('II*\x00\x08\x00\x00\x00', 'latin1'), size, 0),
  svg: () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>'),
  csv: (size = 2000) => {
    const rows = ['part_number,description,qty'];
    for (let i = 0; rows.join('\n').length < size; i++) rows.push(`PN-${i},Bracket ${i},${i % 7}`);
    return Buffer.from(rows.join('\n')).subarray(0, size);
  },
};
